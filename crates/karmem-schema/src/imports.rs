//! Schemas over several files (docs/idl.md §4.5): `import "common.km";`
//! flattens the imported file's declarations into the importer's schema.
//!
//! Every file is lexed and parsed on its own, its spans shifted into one
//! offset space (the root file from 0, each next file after the previous
//! one's end), so the resolver checks the merged declarations unchanged and
//! a diagnostic's span alone says which file it is in.

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::ast;
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::model::Span;
use crate::{lexer, parser, resolve};

/// Reads a file's text (`std::fs::read_to_string`, or an in-memory map).
pub(crate) type Read<'a> = &'a mut dyn FnMut(&Path) -> io::Result<String>;

/// How imported files are found.
pub(crate) struct Access<'a> {
    /// `None` without a file system (`compile`): an import is an error.
    pub read: Option<Read<'a>>,
    /// A file's identity, so a file imported twice is loaded once.
    pub key: fn(&Path) -> PathBuf,
}

/// Every file of a schema, in load order (the root first), and their
/// declarations as one syntax tree.
pub(crate) struct Loaded {
    pub sources: Vec<SourceFile>,
    pub file: ast::File,
    pub diags: Vec<Diagnostic>,
}

/// Load `root` (named `root_name`) and, transitively, what it imports.
pub(crate) fn load(root_name: &str, root: &str, access: Access) -> Loaded {
    let mut loader = Loader {
        access,
        sources: Vec::new(),
        paths: Vec::new(),
        files: Vec::new(),
        loaded: HashMap::new(),
        stack: Vec::new(),
        on_stack: Vec::new(),
        diags: Vec::new(),
    };
    let path = PathBuf::from(root_name);
    loader.loaded.insert((loader.access.key)(&path), 0);
    loader.add_file(root_name.to_string(), path, root.to_string());
    loader.visit(0);
    Loaded {
        file: merge(&mut loader.files),
        sources: loader.sources,
        diags: loader.diags,
    }
}

struct Loader<'a> {
    access: Access<'a>,
    sources: Vec<SourceFile>,
    /// Each file's path, which its imports are relative to.
    paths: Vec<PathBuf>,
    files: Vec<ast::File>,
    /// Index of every file loaded, by key.
    loaded: HashMap<PathBuf, usize>,
    /// The files whose imports are being loaded, each with the index of
    /// its next import: an import of one of them closes a cycle.
    stack: Vec<(usize, usize)>,
    /// Whether each file is on `stack`.
    on_stack: Vec<bool>,
    diags: Vec<Diagnostic>,
}

impl Loader<'_> {
    /// Lex and parse a file at the next free base; returns its index.
    fn add_file(&mut self, name: String, path: PathBuf, source: String) -> usize {
        let base = self
            .sources
            .last()
            .map_or(0, |f| f.base + f.source.len() + 1);
        let (mut tokens, mut diags) = lexer::lex(&source);
        for t in &mut tokens {
            t.span = shift(t.span, base);
        }
        for d in &mut diags {
            d.span = shift(d.span, base);
        }
        let (file, parse_diags) = parser::parse(&tokens);
        self.diags.extend(diags);
        self.diags.extend(parse_diags);
        self.sources.push(SourceFile { name, source, base });
        self.paths.push(path);
        self.files.push(file);
        self.on_stack.push(false);
        self.files.len() - 1
    }

    /// Load what file `root` imports, transitively, depth first. The path
    /// of files being loaded is a vector, not the call stack: a chain of
    /// imports may be as long as there are files.
    fn visit(&mut self, root: usize) {
        self.enter(root);
        while let Some(&(file, next)) = self.stack.last() {
            let Some(import) = self.files[file].imports.get(next).cloned() else {
                self.on_stack[file] = false;
                self.stack.pop();
                continue;
            };
            if let Some(top) = self.stack.last_mut() {
                top.1 += 1;
            }
            if let Some(index) = self.import(file, &import) {
                self.enter(index);
            }
        }
    }

    fn enter(&mut self, file: usize) {
        self.stack.push((file, 0));
        self.on_stack[file] = true;
    }

    /// Load the file `import` of file `from` names, if it is not loaded
    /// yet: its index, whose imports are to be loaded next.
    fn import(&mut self, from: usize, import: &ast::Import) -> Option<usize> {
        let path = relative_to(&self.paths[from], &import.path);
        let key = (self.access.key)(&path);
        if let Some(&seen) = self.loaded.get(&key) {
            if self.on_stack[seen] {
                let cycle = self.cycle(seen, import);
                self.diags.push(cycle);
            }
            return None; // loaded already (a diamond): once is enough
        }
        let source = match self.access.read.as_mut().map(|read| read(&path)) {
            Some(Ok(source)) => source,
            Some(Err(e)) => {
                self.diags.push(unreadable(import, &path, &e));
                return None;
            }
            None => {
                self.diags.push(no_file_system(import));
                return None;
            }
        };
        let index = self.add_file(path.display().to_string(), path, source);
        self.loaded.insert(key, index);
        let base = self.sources[index].base;
        self.diags
            .extend(resolve::header_count(&self.files[index].headers, base));
        Some(index)
    }

    /// The import closing a cycle through the files on the stack from
    /// `to` up, back to `to`.
    fn cycle(&self, to: usize, import: &ast::Import) -> Diagnostic {
        let at = self
            .stack
            .iter()
            .position(|&(i, _)| i == to)
            .expect("a file on the stack");
        let names: Vec<&str> = self.stack[at..]
            .iter()
            .map(|&(i, _)| i)
            .chain([to])
            .map(|i| self.sources[i].name.as_str())
            .collect();
        Diagnostic::error(import.span, format!("import cycle: {}", names.join(" → ")))
            .with_label("this import closes the cycle")
            .with_hint(
                "files cannot import each other: move what they share into a file both import",
            )
    }
}

fn no_file_system(import: &ast::Import) -> Diagnostic {
    Diagnostic::error(
        import.path_span,
        format!(
            "imports need the file system: `{}` cannot be loaded here",
            import.path
        ),
    )
    .with_label("imported file")
    .with_hint(
        "compile schemas with imports with `karmem_schema::compile_path` or the `karmem` command",
    )
}

fn unreadable(import: &ast::Import, path: &Path, error: &io::Error) -> Diagnostic {
    Diagnostic::error(
        import.path_span,
        format!("cannot read `{}`: {error}", path.display()),
    )
    .with_label("imported here")
    .with_hint("an import path is relative to the directory of the file that imports it")
}

fn shift(span: Span, by: usize) -> Span {
    Span::new(span.start + by, span.end + by)
}

/// `import` (written with `/` separators) resolved against the directory
/// of `importer`; an absolute `import` stays as it is.
fn relative_to(importer: &Path, import: &str) -> PathBuf {
    let dir = importer.parent().unwrap_or(Path::new(""));
    normalize(&dir.join(import))
}

/// `path` without `.` components and with `dir/..` pairs removed, by
/// spelling alone (no file system): the key of a file when files are not
/// read from disk, and the name imported files are reported under.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// One syntax tree of every file's declarations, in load order. Only the
/// root file's header, `root` and imports count (docs/idl.md §4.5), but
/// for `@packed` each imported file's header is kept along with where its
/// declarations start.
fn merge(files: &mut [ast::File]) -> ast::File {
    let Some((root, imported)) = files.split_first_mut() else {
        return ast::File::default();
    };
    let mut merged = std::mem::take(root);
    for file in imported {
        merged.imported.push(ast::ImportedFile {
            header: file.headers.first().cloned(),
            first_item: merged.items.len(),
        });
        merged.items.append(&mut file.items);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_importer() {
        let at = |importer: &str, import: &str| relative_to(Path::new(importer), import);
        assert_eq!(at("main.km", "common.km"), Path::new("common.km"));
        assert_eq!(at("s/main.km", "../c/x.km"), Path::new("c/x.km"));
        assert_eq!(at("./s/main.km", "./x.km"), Path::new("s/x.km"));
        assert_eq!(at("main.km", "../x.km"), Path::new("../x.km"));
        assert_eq!(at("s/main.km", "/abs/x.km"), Path::new("/abs/x.km"));
    }
}
