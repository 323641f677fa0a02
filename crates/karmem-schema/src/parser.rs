//! Recursive-descent parser for KarmemIDL (grammar: docs/idl.md).
//!
//! Both dialects are accepted: the paper's (`name: type;`, `(dynamic)`) and
//! the first Karmem's (`Name Type;`, `table`/`inline`). On a syntax error the
//! parser records a diagnostic and skips to the end of the current field or
//! item, so one run reports every independent error.

use crate::ast::*;
use crate::diagnostic::Diagnostic;
use crate::lexer::{Tok, Token};
use crate::model::Span;
use crate::MAX_NESTING;

pub fn parse(tokens: &[Token]) -> (File, Vec<Diagnostic>) {
    // Comments are dropped; a line break before a dropped comment (or
    // inside it) still separates the tokens around it.
    let mut kept: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut line_pending = false;
    for t in tokens {
        if matches!(t.tok, Tok::LineComment(_) | Tok::BlockComment(_)) {
            line_pending |= t.line_before || matches!(t.tok, Tok::LineComment(_));
            continue;
        }
        let mut t = t.clone();
        t.line_before |= line_pending;
        line_pending = false;
        kept.push(t);
    }
    let tokens = kept;
    let mut p = Parser {
        tokens,
        pos: 0,
        diags: Vec::new(),
        type_depth: 0,
    };
    let file = p.file();
    (file, p.diags)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    diags: Vec<Diagnostic>,
    /// Arrays, tuples and maps open around the type being parsed: the
    /// descent stops at `MAX_NESTING`, so no input nests it deeper.
    type_depth: usize,
}

/// A syntax error was recorded; the caller recovers.
struct Bail;

type PResult<T> = Result<T, Bail>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    /// The token `n` places after the next one (end of file past the end).
    fn peek_at(&self, n: usize) -> &Tok {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.pos + n).min(last)].tok
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.tokens[self.pos - 1].span.end
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }

    /// Doc comments (`///`) directly before the next token.
    fn docs(&mut self) -> Vec<String> {
        let mut docs = Vec::new();
        while let Tok::DocComment(text) = self.peek() {
            docs.push(text.clone());
            self.bump();
        }
        docs
    }

    fn is_sym(&self, c: char) -> bool {
        *self.peek() == Tok::Sym(c)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn eat_sym(&mut self, c: char) -> bool {
        if self.is_sym(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error_here(&mut self, expected: &str, hint: Option<&str>) -> Bail {
        let found = self.peek().describe();
        let mut d = Diagnostic::error(self.span(), format!("expected {expected}, found {found}"))
            .with_label(format!("expected {expected}"));
        if let Some(h) = hint {
            d = d.with_hint(h);
        }
        self.diags.push(d);
        Bail
    }

    fn expect_sym(&mut self, c: char, hint: Option<&str>) -> PResult<Span> {
        if self.is_sym(c) {
            Ok(self.bump().span)
        } else {
            Err(self.error_here(&format!("`{c}`"), hint))
        }
    }

    /// The `;` that ends a header, field or member. When it is missing, the
    /// error points right after the token it should follow — where it was
    /// forgotten — rather than at the next token, often on the next line.
    /// If that next token starts a new line, parsing goes on as if the `;`
    /// were there, so one forgotten `;` is one error, not a cascade.
    fn expect_semicolon(&mut self, hint: &str) -> PResult<()> {
        if self.eat_sym(';') {
            return Ok(());
        }
        let end = self.prev_end();
        let found = self.peek().describe();
        self.diags.push(
            Diagnostic::error(Span::new(end, end), format!("expected `;`, found {found}"))
                .with_label("`;` missing here")
                .with_hint(hint),
        );
        if self.tokens[self.pos].line_before {
            Ok(())
        } else {
            Err(Bail)
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        if let Tok::Ident(name) = self.peek() {
            let name = name.clone();
            let span = self.bump().span;
            Ok(Ident { name, span })
        } else {
            Err(self.error_here(what, None))
        }
    }

    fn int(&mut self, what: &str) -> PResult<IntLit> {
        let start = self.span().start;
        let negative = self.eat_sym('-');
        if let Tok::Int(text) = self.peek() {
            let text = text.clone();
            let end = self.bump().span.end;
            let digits = text.replace('_', "");
            let parsed = if let Some(hex) = digits
                .strip_prefix("0x")
                .or_else(|| digits.strip_prefix("0X"))
            {
                i128::from_str_radix(hex, 16).ok()
            } else {
                digits.parse::<i128>().ok()
            };
            let value = parsed.map(|v| if negative { -v } else { v });
            let text = if negative { format!("-{text}") } else { text };
            let span = Span::new(start, end);
            if value.is_none() {
                self.diags.push(
                    Diagnostic::error(span, format!("invalid number `{text}`"))
                        .with_label("not a decimal or 0x-hexadecimal integer")
                        .with_hint("write integers like `42` or `0x2A`"),
                );
            }
            Ok(IntLit { value, text, span })
        } else {
            Err(self.error_here(what, None))
        }
    }

    /// Skip to just after the next `;` at this nesting level, or stop before
    /// a `}` that closes the current block.
    fn recover_field(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Sym('{') | Tok::Sym('(') | Tok::Sym('[') => depth += 1,
                Tok::Sym(')') | Tok::Sym(']') => depth -= 1,
                Tok::Sym('}') => {
                    if depth <= 0 {
                        return;
                    }
                    depth -= 1;
                }
                Tok::Sym(';') if depth <= 0 => {
                    self.bump();
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skip to the next top-level item keyword.
    fn recover_item(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Sym('{') => depth += 1,
                Tok::Sym('}') => {
                    depth -= 1;
                    if depth <= 0 {
                        self.bump();
                        return;
                    }
                }
                Tok::Ident(w)
                    if depth <= 0
                        && matches!(
                            w.as_str(),
                            "struct"
                                | "enum"
                                | "union"
                                | "interface"
                                | "karmem"
                                | "root"
                                | "import"
                        ) =>
                {
                    return
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn file(&mut self) -> File {
        let mut file = File::default();
        loop {
            let docs = self.docs();
            let result = match self.peek().clone() {
                Tok::Eof => break,
                Tok::Ident(w) => match w.as_str() {
                    "karmem" => self.header().map(|h| file.headers.push(h)),
                    "root" => self.root_decl().map(|r| file.roots.push(r)),
                    "import" => self.import_decl().map(|i| file.imports.push(i)),
                    "enum" => self.enum_decl(docs).map(|d| file.items.push(Item::Enum(d))),
                    "struct" => self
                        .struct_decl(docs)
                        .map(|d| file.items.push(Item::Struct(d))),
                    "union" => self
                        .union_decl(docs)
                        .map(|d| file.items.push(Item::Union(d))),
                    "interface" => self
                        .interface_decl(docs)
                        .map(|d| file.items.push(Item::Interface(d))),
                    _ => Err(self.error_here(
                        "`struct`, `enum`, `union` or `interface`",
                        Some("a schema is a `karmem NAME;` header followed by declarations"),
                    )),
                },
                _ => Err(self.error_here(
                    "`struct`, `enum`, `union` or `interface`",
                    Some("a schema is a `karmem NAME;` header followed by declarations"),
                )),
            };
            if result.is_err() {
                // Make progress even when the error is at an item keyword.
                let before = self.pos;
                self.recover_item();
                if self.pos == before {
                    self.bump();
                }
            }
        }
        file
    }

    fn header(&mut self) -> PResult<Header> {
        let start = self.bump().span.start; // `karmem`
        let name = self.ident("a package name after `karmem`")?;
        let mut attrs = Vec::new();
        while self.is_sym('@') {
            attrs.push(self.attr()?);
        }
        // A header is a line of its own: without its `;` it is still the
        // header (the error is reported), so the next declaration is not
        // skipped and no "missing header" error follows.
        let _ = self.expect_semicolon("end the header with `;`");
        Ok(Header {
            name,
            attrs,
            span: Span::new(start, self.prev_end()),
        })
    }

    /// `root NAME;`
    fn root_decl(&mut self) -> PResult<RootDecl> {
        let start = self.bump().span.start; // `root`
        let Tok::Ident(name) = self.peek().clone() else {
            return Err(self.error_here(
                "the root type's name after `root`",
                Some("write `root NAME;`, NAME being a struct of this schema"),
            ));
        };
        let name = Ident {
            name,
            span: self.bump().span,
        };
        self.expect_semicolon("end the root declaration with `;`")?;
        Ok(RootDecl {
            name,
            span: Span::new(start, self.prev_end()),
        })
    }

    /// `import "path";` (a contextual keyword: only here, at the start of a
    /// top-level item, is `import` more than a name).
    fn import_decl(&mut self) -> PResult<Import> {
        let start = self.bump().span.start; // `import`
        let Tok::Str(path) = self.peek().clone() else {
            return Err(self.error_here(
                "a file path in quotes after `import`",
                Some("write `import \"common.km\";`, the path relative to this file"),
            ));
        };
        let path_span = self.bump().span;
        self.expect_semicolon("end the import with `;`")?;
        Ok(Import {
            path,
            path_span,
            span: Span::new(start, self.prev_end()),
        })
    }

    /// `@a.b(value)` / `#name` / `@name`.
    fn attr(&mut self) -> PResult<Attr> {
        let sigil_tok = self.bump();
        let sigil = match sigil_tok.tok {
            Tok::Sym(c) => c,
            _ => unreachable!("attr is only called at `@` or `#`"),
        };
        let first = self.ident("an attribute name")?;
        let mut name = first.name;
        let mut end = first.span.end;
        while self.is_sym('.') {
            self.bump();
            let part = self.ident("an attribute name after `.`")?;
            name.push('.');
            name.push_str(&part.name);
            end = part.span.end;
        }
        let name = Ident {
            name,
            span: Span::new(first.span.start, end),
        };
        let mut value = None;
        if sigil == '@' && self.is_sym('(') {
            self.bump();
            let t = self.bump();
            let text = match &t.tok {
                Tok::Str(s) | Tok::Ident(s) | Tok::Int(s) => s.clone(),
                _ => {
                    self.pos -= 1;
                    return Err(self.error_here("an attribute value", None));
                }
            };
            value = Some((text, t.span));
            self.expect_sym(')', Some("close the attribute value with `)`"))?;
        }
        Ok(Attr {
            sigil,
            name,
            value,
            span: Span::new(sigil_tok.span.start, self.prev_end()),
        })
    }

    /// The optional type after an enum's or a union's name: bare (`enum E u8`)
    /// or in parentheses (`enum E (u8)`), both meaning the same. `keyword` and
    /// `name` make the hints quote the user's own declaration.
    fn optional_type(
        &mut self,
        keyword: &str,
        name: &str,
        example: &str,
    ) -> PResult<Option<Ident>> {
        if self.eat_sym('(') {
            if !matches!(self.peek(), Tok::Ident(_)) {
                let hint = format!(
                    "put the {keyword}'s type between the parentheses (`{keyword} {name} ({example})`) or leave them out"
                );
                return Err(self.error_here("a type", Some(&hint)));
            }
            let ty = self.ident("a type")?;
            let hint = format!("close the type with `)`: `{keyword} {name} ({})`", ty.name);
            self.expect_sym(')', Some(&hint))?;
            Ok(Some(ty))
        } else if let Tok::Ident(_) = self.peek() {
            Ok(Some(self.ident("a type")?))
        } else {
            Ok(None)
        }
    }

    fn enum_decl(&mut self, doc: Vec<String>) -> PResult<EnumDecl> {
        let start = self.bump().span.start;
        let name = self.ident("an enum name")?;
        let repr = self.optional_type("enum", &name.name, "u8")?;
        self.expect_sym('{', Some("enum values go between `{` and `}`"))?;
        let mut variants = Vec::new();
        loop {
            let vdoc = self.docs();
            if self.eat_sym('}') {
                break;
            }
            if *self.peek() == Tok::Eof {
                return Err(self.error_here("`}`", Some("close the enum with `}`")));
            }
            let result = (|| {
                let vname = self.ident("an enum value name")?;
                let value = if self.eat_sym('=') {
                    Some(self.int("an integer value")?)
                } else {
                    None
                };
                if !self.eat_sym(';') && !self.eat_sym(',') && !self.is_sym('}') {
                    return Err(self.error_here("`;`", Some("end each enum value with `;`")));
                }
                Ok(EnumVariantDecl {
                    name: vname,
                    value,
                    doc: vdoc,
                })
            })();
            match result {
                Ok(v) => variants.push(v),
                Err(Bail) => self.recover_field(),
            }
        }
        Ok(EnumDecl {
            name,
            repr,
            variants,
            doc,
            span: Span::new(start, self.prev_end()),
        })
    }

    fn struct_decl(&mut self, doc: Vec<String>) -> PResult<StructDecl> {
        let start = self.bump().span.start;
        let name = self.ident("a struct name")?;
        let mut kind = Vec::new();
        if self.eat_sym('(') {
            loop {
                kind.push(self.ident("a struct kind (`dynamic` or `inline`)")?);
                if !self.eat_sym(',') {
                    break;
                }
            }
            self.expect_sym(')', None)?;
        } else if let Tok::Ident(_) = self.peek() {
            kind.push(self.ident("a struct kind")?);
        }
        self.expect_sym('{', Some("fields go between `{` and `}`"))?;
        let mut fields = Vec::new();
        loop {
            let fdoc = self.docs();
            if self.eat_sym('}') {
                break;
            }
            if *self.peek() == Tok::Eof {
                return Err(self.error_here("`}`", Some("close the struct with `}`")));
            }
            match self.field(fdoc) {
                Ok(f) => fields.push(f),
                Err(Bail) => self.recover_field(),
            }
        }
        Ok(StructDecl {
            name,
            kind,
            fields,
            doc,
            span: Span::new(start, self.prev_end()),
        })
    }

    fn field(&mut self, doc: Vec<String>) -> PResult<FieldDecl> {
        let name = self.ident("a field name")?;
        self.eat_sym(':');
        let optional = self.is_sym('?').then(|| self.bump().span);
        let ty = self.type_expr()?;
        let mut attrs = Vec::new();
        while self.is_sym('@') || self.is_sym('#') {
            attrs.push(self.attr()?);
        }
        let default = if self.eat_sym('=') {
            Some(self.literal()?)
        } else {
            None
        };
        self.expect_semicolon("end each field with `;`")?;
        Ok(FieldDecl {
            span: Span::new(name.span.start, self.prev_end()),
            name,
            optional,
            ty,
            attrs,
            default,
            doc,
        })
    }

    /// A default value: an integer, a decimal number, a string, or a word
    /// (`true`, `false`, an enum value), checked against the field's type
    /// by the resolver.
    fn literal(&mut self) -> PResult<Literal> {
        let start = self.span().start;
        match self.peek().clone() {
            Tok::Str(value) => {
                let span = self.bump().span;
                Ok(Literal::Str { value, span })
            }
            Tok::Ident(_) => Ok(Literal::Ident(self.ident("a value")?)),
            Tok::Sym('-') | Tok::Int(_) | Tok::Float(_) => {
                let negative = matches!(self.peek(), Tok::Sym('-'));
                if negative && matches!(self.peek_at(1), Tok::Float(_)) {
                    self.bump();
                }
                if let Tok::Float(text) = self.peek().clone() {
                    let end = self.bump().span.end;
                    let text = if negative { format!("-{text}") } else { text };
                    return Ok(Literal::Float {
                        text,
                        span: Span::new(start, end),
                    });
                }
                Ok(Literal::Int(self.int("a number")?))
            }
            _ => Err(self.error_here(
                "a default value",
                Some("write a number, a string, `true`, `false` or an enum value"),
            )),
        }
    }

    /// A type, at most `MAX_NESTING` arrays, tuples and maps deep (docs/idl.md
    /// §3): beyond that it is an error, reported at the constructor that
    /// opens the level too many, before descending into it.
    fn type_expr(&mut self) -> PResult<TypeExpr> {
        let opens = self.is_sym('[')
            || self.is_sym('(')
            || (self.is_word("map") && matches!(self.peek_at(1), Tok::Sym('<')));
        if !opens {
            return Ok(TypeExpr::Named(self.ident("a type")?));
        }
        if self.type_depth == MAX_NESTING {
            self.diags.push(
                Diagnostic::error(
                    self.span(),
                    format!("a type is nested more than {MAX_NESTING} levels deep"),
                )
                .with_label("one array, tuple or map too many")
                .with_hint(format!(
                    "at most {MAX_NESTING} arrays, tuples and maps go inside one another; \
                     name an inner part with a struct of its own"
                )),
            );
            return Err(Bail);
        }
        self.type_depth += 1;
        let ty = self.nested_type();
        self.type_depth -= 1;
        ty
    }

    /// An array, a tuple or a map (`type_expr` checked the depth).
    fn nested_type(&mut self) -> PResult<TypeExpr> {
        if self.is_sym('[') {
            let start = self.bump().span.start;
            let kind = if self.eat_sym(']') {
                ArrayKindExpr::Dynamic
            } else if self.eat_sym('<') {
                let n = self.int("the array limit after `[<`")?;
                self.expect_sym(']', Some("a limited array is written `[<N]T`"))?;
                ArrayKindExpr::Limited(n)
            } else {
                let n = self.int("an array length, `]` or `<`")?;
                self.expect_sym(']', Some("a fixed array is written `[N]T`"))?;
                ArrayKindExpr::Fixed(n)
            };
            if self.is_sym('?') {
                return Err(self.error_here(
                    "an element type",
                    Some("array elements cannot be optional; an optional array is `?[]T`"),
                ));
            }
            let elem = self.type_expr()?;
            Ok(TypeExpr::Array {
                kind,
                elem: Box::new(elem),
                span: Span::new(start, self.prev_end()),
            })
        } else if self.is_sym('(') {
            let start = self.bump().span.start;
            let mut elems = vec![self.type_expr()?];
            while self.eat_sym(',') {
                elems.push(self.type_expr()?);
            }
            self.expect_sym(')', Some("a tuple is written `(T0, T1, ...)`"))?;
            Ok(TypeExpr::Tuple {
                elems,
                span: Span::new(start, self.prev_end()),
            })
        } else if self.is_word("map") && matches!(self.peek_at(1), Tok::Sym('<')) {
            let start = self.bump().span.start;
            self.bump();
            let key = self.type_expr()?;
            self.expect_sym(',', Some("a map is written `map<K, V>`"))?;
            let value = self.type_expr()?;
            self.expect_sym('>', Some("a map is written `map<K, V>`"))?;
            Ok(TypeExpr::Map {
                key: Box::new(key),
                value: Box::new(value),
                span: Span::new(start, self.prev_end()),
            })
        } else {
            unreachable!("type_expr descends only at `[`, `(` and `map<`")
        }
    }

    fn union_decl(&mut self, doc: Vec<String>) -> PResult<UnionDecl> {
        let start = self.bump().span.start;
        let name = self.ident("a union name")?;
        let tag = self.optional_type("union", &name.name, "u16")?;
        self.expect_sym('{', Some("union variants go between `{` and `}`"))?;
        let mut variants = Vec::new();
        loop {
            self.docs();
            if self.eat_sym('}') {
                break;
            }
            if *self.peek() == Tok::Eof {
                return Err(self.error_here("`}`", Some("close the union with `}`")));
            }
            let result = (|| {
                let first = self.ident("a variant type")?;
                let (label, ty) = if self.eat_sym(':') {
                    (Some(first), self.ident("a variant type")?)
                } else {
                    (None, first)
                };
                let tag = if self.eat_sym('=') {
                    Some(self.int("a tag value")?)
                } else {
                    None
                };
                if !self.eat_sym(';') && !self.eat_sym(',') && !self.is_sym('}') {
                    return Err(self.error_here("`;`", Some("end each variant with `;`")));
                }
                Ok(UnionVariantDecl { label, ty, tag })
            })();
            match result {
                Ok(v) => variants.push(v),
                Err(Bail) => self.recover_field(),
            }
        }
        Ok(UnionDecl {
            name,
            tag,
            variants,
            doc,
            span: Span::new(start, self.prev_end()),
        })
    }

    fn interface_decl(&mut self, doc: Vec<String>) -> PResult<InterfaceDecl> {
        let start = self.bump().span.start;
        let name = self.ident("an interface name")?;
        let mut options = Vec::new();
        if self.eat_sym('(') {
            loop {
                let opt = self.ident("an interface option")?;
                let arg = if self.eat_sym('(') {
                    let n = self.int("a number")?;
                    self.expect_sym(')', None)?;
                    Some(n)
                } else {
                    None
                };
                options.push((opt, arg));
                if !self.eat_sym(',') {
                    break;
                }
            }
            self.expect_sym(')', None)?;
        }
        self.expect_sym('{', Some("interface members go between `{` and `}`"))?;
        let mut memories = Vec::new();
        let mut functions = Vec::new();
        loop {
            let mdoc = self.docs();
            if self.eat_sym('}') {
                break;
            }
            if *self.peek() == Tok::Eof {
                return Err(self.error_here("`}`", Some("close the interface with `}`")));
            }
            let result = (|| {
                let mname = self.ident("a member name")?;
                self.expect_sym(
                    ':',
                    Some("members are `name: memory (...);` or `name: fn(...) (...);`"),
                )?;
                if self.is_word("memory") {
                    self.bump();
                    memories.push(self.memory_rest(mname, mdoc)?);
                } else if self.is_word("fn") {
                    self.bump();
                    functions.push(self.function_rest(mname, mdoc)?);
                } else {
                    return Err(self.error_here("`memory` or `fn`", None));
                }
                Ok(())
            })();
            if result.is_err() {
                self.recover_field();
            }
        }
        Ok(InterfaceDecl {
            name,
            options,
            memories,
            functions,
            doc,
            span: Span::new(start, self.prev_end()),
        })
    }

    fn memory_rest(&mut self, name: Ident, doc: Vec<String>) -> PResult<MemoryDecl> {
        self.expect_sym(
            '(',
            Some("a memory is `name: memory (import: read, export: write, PAGES);`"),
        )?;
        let mut access = Vec::new();
        let mut pages: Option<IntLit> = None;
        loop {
            if matches!(self.peek(), Tok::Int(_)) {
                let n = self.int("a page count")?;
                if let Some(first) = &pages {
                    self.diags.push(
                        Diagnostic::error(n.span, "the maximum size of a memory is given twice")
                            .with_label("second size")
                            .with_secondary(first.span, "first size")
                            .with_hint("keep one page count"),
                    );
                } else {
                    pages = Some(n);
                }
            } else {
                let side = self.ident("`import`, `export` or a page count")?;
                self.expect_sym(':', None)?;
                let level = self.ident("`read` or `write`")?;
                access.push((side, level));
            }
            if !self.eat_sym(',') {
                break;
            }
        }
        self.expect_sym(')', None)?;
        self.expect_semicolon("end each member with `;`")?;
        Ok(MemoryDecl {
            span: Span::new(name.span.start, self.prev_end()),
            name,
            access,
            pages,
            doc,
        })
    }

    fn function_rest(&mut self, name: Ident, doc: Vec<String>) -> PResult<FunctionDecl> {
        let params = self.param_list()?;
        let results = if self.is_sym('(') {
            self.param_list()?
        } else if *self.peek() == Tok::Arrow {
            self.bump();
            let ty = self.ident("a result type")?;
            let memory = self.memory_binding()?;
            vec![ParamDecl {
                name: Ident {
                    name: "result".into(),
                    span: ty.span,
                },
                span: ty.span,
                ty,
                memory,
            }]
        } else {
            Vec::new()
        };
        self.expect_semicolon("end each member with `;`")?;
        Ok(FunctionDecl {
            span: Span::new(name.span.start, self.prev_end()),
            name,
            params,
            results,
            doc,
        })
    }

    fn param_list(&mut self) -> PResult<Vec<ParamDecl>> {
        self.expect_sym('(', None)?;
        let mut params = Vec::new();
        if self.eat_sym(')') {
            return Ok(params);
        }
        loop {
            let pname = self.ident("a parameter name")?;
            self.expect_sym(':', Some("parameters are written `name: Type`"))?;
            let ty = self.ident("a parameter type")?;
            let memory = self.memory_binding()?;
            params.push(ParamDecl {
                span: Span::new(pname.span.start, self.prev_end()),
                name: pname,
                ty,
                memory,
            });
            if !self.eat_sym(',') {
                break;
            }
        }
        self.expect_sym(')', None)?;
        Ok(params)
    }

    /// `@ memory_name` after a parameter type.
    fn memory_binding(&mut self) -> PResult<Option<Ident>> {
        if self.eat_sym('@') {
            Ok(Some(self.ident("a memory name after `@`")?))
        } else {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    #[test]
    fn parses_both_field_styles() {
        let (tokens, d) = lex("karmem a; struct S table { A u8; b: []u16 @string; C [<4]S #aos; }");
        assert!(d.is_empty());
        let (file, d) = parse(&tokens);
        assert!(d.is_empty(), "{d:?}");
        let Item::Struct(s) = &file.items[0] else {
            panic!()
        };
        assert_eq!(s.fields.len(), 3);
        assert_eq!(s.fields[1].attrs[0].name.name, "string");
        assert_eq!(s.fields[2].attrs[0].sigil, '#');
    }

    #[test]
    fn parses_imports_and_keeps_import_a_name_elsewhere() {
        let src =
            "karmem a;\nimport \"common.km\";\nimport `x/y.km`;\nstruct import { import u8; }\n";
        let (tokens, d) = lex(src);
        assert!(d.is_empty());
        let (file, d) = parse(&tokens);
        assert!(d.is_empty(), "{d:?}");
        let paths: Vec<&str> = file.imports.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["common.km", "x/y.km"]);
        assert_eq!(
            &src[file.imports[0].path_span.start..file.imports[0].path_span.end],
            "\"common.km\""
        );
        assert_eq!(file.items.len(), 1);

        let (tokens, _) = lex("karmem a;\nimport common;\nstruct S { }\n");
        let (file, d) = parse(&tokens);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("a file path in quotes"), "{d:?}");
        assert_eq!(file.items.len(), 1, "recovers at the next item");
    }

    #[test]
    fn recovers_and_reports_several_errors() {
        let (tokens, _) = lex("karmem a; struct S { A ; B u8; C [u8; } enum E { = }");
        let (file, d) = parse(&tokens);
        assert!(d.len() >= 3, "{d:?}");
        assert_eq!(file.items.len(), 2);
    }
}
