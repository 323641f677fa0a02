//! The validator: the state of one validation or object-decoding pass over
//! a message (docs/format.md §10–§11), the element-wise checks and the
//! column-wise fast paths generated validators use for SoA arrays.

const std = @import("std");
const km = @import("karmem.zig");
const rd = @import("reader.zig");

const Reader = km.Reader;
const Table = km.Table;
const ArrayRef = km.ArrayRef;
const Column = km.Column;
const Error = km.ValidateError;

/// The state of one validation or decoding pass: the reader, the remaining
/// traversal budget and the nesting depth (docs/format.md §10). Generated
/// validate and decode functions drive it; it lives on the caller's stack
/// and allocates nothing. Every error it returns is recorded, with its
/// place in the message, in `fault`.
pub const Validator = struct {
    /// The message being validated.
    r: Reader,
    /// Units of the traversal budget left (docs/format.md §10).
    budget: u64,
    /// Tables on the path to the one being read (docs/format.md §10).
    depth: u32 = 0,
    /// The kind and place of the last error returned.
    fault: km.Fault = .{},

    /// Starts a pass over `r` with a budget of
    /// `traversal_budget_factor` × message size units (docs/format.md §10).
    pub fn init(r: Reader) Validator {
        return .{ .r = r, .budget = @as(u64, r.size()) * r.limits.traversal_budget_factor };
    }

    /// Records a fault and returns its error, for generated code too.
    pub fn fail(v: *Validator, comptime err: Error, offset: u32, value: u64) Error {
        v.fault = .{ .kind = err, .offset = offset, .value = value };
        return err;
    }

    /// Accounts for `n` bytes visited (or allocated), at least 1 unit, so
    /// that empty objects count too; fails once the budget is spent, which
    /// bounds the work of messages that reuse offsets (docs/format.md §10).
    pub fn charge(v: *Validator, n: u64) Error!void {
        const units = @max(n, 1);
        if (units > v.budget) return v.fail(error.BudgetExceeded, 0, units);
        v.budget -= units;
    }

    /// Descends one table level; fails past `max_depth` (docs/format.md
    /// §10: the root table is at depth 1).
    pub fn enter(v: *Validator) Error!void {
        v.depth += 1;
        if (v.depth > v.r.limits.max_depth) return v.fail(error.DepthExceeded, 0, v.depth);
    }

    /// Ascends one table level.
    pub fn leave(v: *Validator) void {
        v.depth -= 1;
    }

    /// Checks the table at `offset`, which must be well formed; offset 0 is
    /// malformed too (docs/format.md §4: a writer always writes a table).
    /// `full` is the table's full size in the reader's schema (`S`, §10):
    /// charges `max(total × 8, full)`, as a decoder builds every field of
    /// the reader's schema, present in the message or not, so a message
    /// that validates also decodes within the same budget.
    pub fn table(v: *Validator, offset: u32, full: u32) Error!Table {
        const t = v.r.table(offset);
        if (t.isAbsent()) return v.fail(error.MalformedTable, offset, 0);
        const header = v.r.load(u32, offset);
        try v.charge(@max(@as(u64, header & 0x1FFFFFFF) * 8, full));
        return t;
    }

    /// Checks the root table, which must be present (docs/format.md §1);
    /// `full` as in `table`.
    pub fn root(v: *Validator, full: u32) Error!Table {
        return v.table(km.header_size, full);
    }

    /// Checks the array reference at `at`, which must be well formed
    /// (docs/format.md §5), and charges `capacity × elem_size` (§10).
    pub fn array(v: *Validator, at: u32, elem_size: u32, limit: u32) Error!ArrayRef {
        const a = v.r.rawArrayRef(at);
        if (a.len > limit) return v.fail(error.LimitExceeded, at, a.len);
        if (!rd.arrayOk(a, elem_size, limit, v.r.mem.len)) return v.fail(error.MalformedArray, at, 0);
        try v.charge(@as(u64, a.cap) * elem_size);
        return a;
    }

    /// Checks an array field of table `t` (absent = empty, valid).
    pub fn fieldArray(v: *Validator, t: Table, offset: u32, elem_size: u32, limit: u32) Error!ArrayRef {
        if (!t.has(offset, 12)) return .empty;
        return v.array(t.offset + offset, elem_size, limit);
    }

    /// Checks an SoA block and its directory (docs/format.md §5.3) and
    /// resolves the known columns into `out`, as `Reader.soaColumns`. A
    /// known column that is present must be listed once with the reader's
    /// size; absent columns are valid (older writers). Charges the
    /// directory, then `capacity × size` for every known column, present or
    /// not (§10).
    pub fn soa(v: *Validator, a: ArrayRef, wanted: []const Column, out: []u32) Error!void {
        return v.soaChecked(a, wanted, out, true);
    }

    /// `soa` over a column list known at compile time.
    pub fn soaOf(v: *Validator, comptime wanted: []const Column, a: ArrayRef) Error![wanted.len]u32 {
        var out: [wanted.len]u32 = @splat(0);
        try v.soa(a, wanted, &out);
        return out;
    }

    /// `soa`; `fast` selects the same-version path (tests compare it with
    /// the scan alone).
    pub fn soaChecked(v: *Validator, a: ArrayRef, wanted: []const Column, out: []u32, fast: bool) Error!void {
        @memset(out, 0);
        if (a.cap == 0) return;
        const r = v.r;
        const d = r.directory(a) orelse {
            if (a.offset % km.directory_align == 0 and r.fits(a.offset, 4)) {
                const dir = r.load(u32, a.offset);
                const n = r.load(u32, dir);
                if (dir != 0 and n > r.limits.max_directory_entries)
                    return v.fail(error.DirectoryTooLarge, dir, n);
            }
            return v.fail(error.MalformedArray, a.offset, 0);
        };
        try v.charge(km.directoryCharge(d.n));
        // A directory of the reader's own schema version (the common case):
        // the columns laid out with the known sizes, charged at once.
        // Anything else, or a block past the end, goes through the scan
        // below, which names the error.
        if (fast and d.n == wanted.len and r.sameDirectory(d.offset, wanted) and
            sameLayout(r, a.offset, a.cap, wanted, out))
        {
            return v.charge(@as(u64, a.cap) * elementWidth(wanted) + zeroWidthColumns(wanted));
        }
        @memset(out, 0);
        // Two entries for one known column are ambiguous, and one with
        // another value size would be misread (docs/format.md §5.3).
        const found = r.findColumns(a, d, wanted, out);
        if (!found.fits or !found.strict) {
            @memset(out, 0);
            return v.fail(error.MalformedArray, a.offset, 0);
        }
        // An element is at least one unit, also without columns (an empty
        // table): a huge capacity of nothing is no free work (§10).
        if (wanted.len == 0) return v.charge(a.cap);
        // Every known column is charged, present or not: absent columns
        // read as zeros and decoding allocates them, so a validated message
        // always decodes within the same budget (§10).
        for (wanted) |c| try v.charge(@as(u64, a.cap) * c.size);
    }

    /// Charges the bunch table of `a` once, as a decoder reads it
    /// (docs/format.md §10): 16 × (k + 1) for a well-formed table of k
    /// entries, nothing for an empty or malformed one (whose variants read
    /// as empty). Generated decoders call it before they look up the
    /// variants.
    pub fn chargeBunch(v: *Validator, a: ArrayRef) Error!void {
        const k = v.r.bunchEntries(a) orelse return;
        try v.charge(km.bunchTableSize(k));
    }

    /// Resolves the known columns of an SoA array for decoding, as
    /// `Reader.soaColumns`, and charges the directory each time it is read
    /// (docs/format.md §10): a directory shared by many arrays costs each.
    pub fn soaColumns(v: *Validator, a: ArrayRef, wanted: []const Column, out: []u32) Error!void {
        @memset(out, 0);
        const d = v.r.directory(a) orelse return;
        v.r.resolveColumns(a, d, wanted, out);
        try v.charge(km.directoryCharge(d.n));
    }

    /// Checks that `n` bytes at `offset` are valid UTF-8 (docs/format.md
    /// §6). ASCII, the common case, is recognised eight bytes at a time;
    /// text outside the message is refused (MalformedArray), not read as
    /// empty and valid.
    pub fn utf8(v: *Validator, offset: u32, n: u32) Error!void {
        if (asciiWords(v.r, offset, n)) return;
        const text = v.r.slice(u8, offset, n);
        if (text.len != n) return v.fail(error.MalformedArray, offset, 0);
        if (!std.unicode.utf8ValidateSlice(text)) return v.fail(error.InvalidText, offset, 0);
    }

    /// Checks that `n` code units at `offset` are valid UTF-16: no unpaired
    /// surrogates (docs/format.md §6). `value` of the fault is the index of
    /// the bad unit.
    pub fn utf16(v: *Validator, offset: u32, n: u32) Error!void {
        const units = v.r.slice(u16, offset, n);
        var i: usize = 0;
        while (i < units.len) : (i += 1) {
            const u = units[i];
            if (u < 0xD800 or u > 0xDFFF) continue;
            if (u < 0xDC00 and i + 1 < units.len and units[i + 1] >= 0xDC00 and units[i + 1] <= 0xDFFF) {
                i += 1;
                continue;
            }
            return v.fail(error.InvalidText, offset, i);
        }
    }

    /// Checks that the byte at `offset` (a bool or a presence byte) is 0 or
    /// 1 (docs/format.md §2, §4.2).
    pub fn boolAt(v: *Validator, offset: u32) Error!void {
        if (v.r.load(u8, offset) > 1) return v.fail(error.InvalidBool, offset, 0);
    }

    /// Checks `n` bool bytes at `offset`.
    pub fn bools(v: *Validator, offset: u32, n: u32) Error!void {
        for (v.r.slice(u8, offset, n), 0..) |b, i| {
            if (b > 1) return v.fail(error.InvalidBool, offset + @as(u32, @intCast(i)), 0);
        }
    }

    /// Checks the tag and offset columns of an SoA array of unions
    /// (docs/format.md §7.1) and charges `capacity × (tag_size + 4)`; null
    /// for an empty array.
    pub fn unionColumns(v: *Validator, a: ArrayRef, tag_size: u32) Error!?Reader.UnionColumns {
        if (a.cap == 0) return null;
        const cols = v.r.unionColumns(a, tag_size) orelse return v.fail(error.MalformedArray, a.offset, 0);
        try v.charge(@as(u64, a.cap) * (@as(u64, tag_size) + 4));
        return cols;
    }

    /// Checks a bunch table (docs/format.md §7.1): its size and alignment,
    /// that its entries' lengths add up to the array's length, and that no
    /// tag of `known` (the variants of the reader's schema) has two entries.
    /// Returns its number of entries; entry e (1-based) starts at
    /// `a.offset + 16 × e` with its `u32` tag, then an array reference.
    pub fn bunch(v: *Validator, a: ArrayRef, known: []const u32) Error!u32 {
        // A variant of `known` without an entry costs one unit, as a
        // decoder charges its empty array (docs/format.md §10).
        if (a.cap == 0) {
            if (known.len > 0) try v.charge(known.len);
            return 0;
        }
        const r = v.r;
        const k = r.load(u32, a.offset);
        if (k > r.limits.max_directory_entries) return v.fail(error.DirectoryTooLarge, a.offset, k);
        const block = km.bunchTableSize(k);
        if (a.offset % km.bunch_table_align != 0 or !r.fits(a.offset, block))
            return v.fail(error.MalformedArray, a.offset, 0);
        try v.charge(block);
        // The entries' lengths, unknown tags included, must add up to the
        // array's length; summed in 64 bits, which a hostile 32-bit sum
        // could wrap to match (§7.1).
        var total: u64 = 0;
        var e: u32 = 1;
        while (e <= k) : (e += 1) total += r.load(u32, a.offset + 16 * e + 8);
        if (total != a.len) return v.fail(error.MalformedArray, a.offset, 0);
        // A known variant with two entries is ambiguous (§7.1); unknown
        // tags may repeat.
        var missing: u64 = 0;
        for (known) |tag| {
            var n: u32 = 0;
            e = 1;
            while (e <= k) : (e += 1) {
                if (r.load(u32, a.offset + 16 * e) == tag) n += 1;
            }
            if (n > 1) return v.fail(error.MalformedArray, a.offset, 0);
            if (n == 0) missing += 1;
        }
        if (missing > 0) try v.charge(missing);
        return k;
    }

    /// The error of a union slot at `offset` whose known `tag` has no valid
    /// value (docs/format.md §7, §11), recorded as a fault.
    pub fn invalidUnion(v: *Validator, offset: u32, tag: u32) Error {
        return v.fail(error.InvalidUnion, offset, tag);
    }

    // Column-wise checks of SoA arrays (docs/format.md §11: "one pass"
    // bounds the work, not the order). Generated validators walk an SoA
    // array one column at a time: all references of a column, then what
    // they point to. These accept exactly what the element-wise checks
    // (`array`, `utf8`, `soa`) accept and charge the same budget; only which
    // fault is reported first can differ.

    /// Checks a column of `n` array references at `col` (a column of an SoA
    /// block that `soa` placed inside the message) as `array` checks each of
    /// them, and charges the budget once with their sum. When a reference is
    /// bad, the column is walked again to report the first bad one with
    /// `array`'s error.
    pub fn arrayColumn(v: *Validator, col: u32, n: u32, elem_size: u32, limit: u32) Error!void {
        if (n == 0) return;
        const refs = columnRefs(v.r, col, n) orelse return v.fail(error.MalformedArray, col, 0);
        const size: u64 = v.r.mem.len;
        const es: u64 = elem_size;
        const alignment = km.naturalAlign(elem_size);
        var bad = false;
        // Each term is at most 2^64 − 2^33 + 1 on its own; a well-formed
        // reference's is at most the message size, so for an accepted
        // column the sum (≤ n × 2^32 < 2^62) cannot wrap. A wrapped sum of
        // a refused column is never used.
        var cost: u64 = 0;
        var i: usize = 0;
        while (i + 3 <= refs.len) : (i += 3) {
            const offset = refs[i];
            const length = refs[i + 1];
            const capacity = refs[i + 2];
            const nbytes = @as(u64, capacity) * es;
            const placed = offset != 0 and offset % alignment == 0 and @as(u64, offset) + nbytes <= size;
            bad = bad or length > capacity or length > limit or (capacity != 0 and !placed);
            cost +%= nbytes + @intFromBool(nbytes == 0); // charge's minimum of 1
        }
        if (bad) return v.firstBadArray(col, n, elem_size, limit);
        return v.charge(cost);
    }

    /// The error `array` gives for the first bad reference of a column that
    /// `arrayColumn` refused.
    fn firstBadArray(v: *Validator, col: u32, n: u32, elem_size: u32, limit: u32) Error!void {
        // A copy with an unlimited budget: only the shape is in question.
        var w: Validator = .{ .r = v.r, .budget = std.math.maxInt(u64), .depth = v.depth };
        var i: u32 = 0;
        while (i < n) : (i += 1) {
            _ = w.array(col + 12 * i, elem_size, limit) catch |err| {
                v.fault = w.fault;
                return err;
            };
        }
        return v.fail(error.MalformedArray, col, 0);
    }

    /// Element `i` of a column of array references that passed
    /// `arrayColumn`: what `array` returns for it.
    pub fn columnRef(v: *const Validator, col: u32, i: u32) ArrayRef {
        return v.r.rawArrayRef(col + 12 * i);
    }

    /// Checks the UTF-8 text of each of the `n` arrays of a column that
    /// passed `arrayColumn` (a `[]char` field of an SoA element).
    pub fn utf8Column(v: *Validator, col: u32, n: u32) Error!void {
        const refs = columnRefs(v.r, col, n) orelse return;
        var i: usize = 0;
        while (i + 3 <= refs.len) : (i += 3) try v.utf8(refs[i], refs[i + 1]);
    }

    /// Checks the SoA blocks and directories of the `n` arrays of a column
    /// that passed `arrayColumn` (`wanted` as in `soa`), for element types
    /// whose columns need no checks beyond the directory (only numbers). A
    /// directory of the reader's schema version is compared with `wanted`
    /// once (the arrays of a column share it, docs/format.md §5.3), each
    /// block's layout checked, and all of them charged at once; any other
    /// goes through `soa`. The budget charged is `soa`'s.
    pub fn soaColumn(v: *Validator, col: u32, n: u32, wanted: []const Column) Error!void {
        const r = v.r;
        const fast = wanted.len <= r.limits.max_directory_entries;
        const dir_charge = km.directoryCharge(wanted.len);
        const width = elementWidth(wanted);
        const zeros = zeroWidthColumns(wanted);
        // Where the slow path puts the columns, discarded: on the stack,
        // as the readers and validators never allocate. Wider elements
        // (rare) take the slow path for every array with a scratch of the
        // same size, in chunks.
        var scratch: [64]u32 = undefined;
        var known: u32 = 0; // the directory last found to be the same-version one
        var cost: u64 = 0;
        const refs = columnRefs(r, col, n) orelse return;
        var i: usize = 0;
        while (i + 3 <= refs.len) : (i += 3) {
            const offset = refs[i];
            const length = refs[i + 1];
            const capacity = refs[i + 2];
            if (capacity == 0) continue;
            var good = false;
            if (fast and offset % km.directory_align == 0 and r.fits(offset, 4)) {
                const dir = r.load(u32, offset);
                if ((dir != 0 and dir == known) or r.sameDirectory(dir, wanted)) {
                    good = sameLayout(r, offset, capacity, wanted, null);
                    if (good) known = dir;
                }
            }
            if (good) {
                cost += dir_charge + @as(u64, capacity) * width + zeros;
                // Each term is below 2^43; stopping once the sum passes what
                // is left keeps it from wrapping, and the charge would fail.
                if (cost > v.budget) return v.fail(error.BudgetExceeded, 0, cost);
                continue;
            }
            const a: ArrayRef = .{ .offset = offset, .len = length, .cap = capacity };
            if (wanted.len <= scratch.len) {
                try v.soa(a, wanted, scratch[0..wanted.len]);
            } else {
                try v.soaWide(a, wanted);
            }
        }
        if (cost == 0) return;
        return v.charge(cost);
    }

    /// `soa` for more columns than `soaColumn`'s scratch holds: the scan
    /// only needs to know, per wanted column, whether it was already found,
    /// which it asks `findColumns` chunk by chunk would get wrong; so it
    /// runs the same checks with a bit per column, on the stack.
    fn soaWide(v: *Validator, a: ArrayRef, wanted: []const Column) Error!void {
        var seen: std.StaticBitSet(1024) = .empty;
        if (wanted.len > 1024) return v.fail(error.DirectoryTooLarge, a.offset, wanted.len);
        const r = v.r;
        const d = r.directory(a) orelse {
            if (a.offset % km.directory_align == 0 and r.fits(a.offset, 4)) {
                const dir = r.load(u32, a.offset);
                const n = r.load(u32, dir);
                if (dir != 0 and n > r.limits.max_directory_entries)
                    return v.fail(error.DirectoryTooLarge, dir, n);
            }
            return v.fail(error.MalformedArray, a.offset, 0);
        };
        try v.charge(km.directoryCharge(d.n));
        const limit: u64 = r.mem.len;
        const entries = r.mem[@as(usize, d.offset) + 4 ..][0 .. 8 * @as(usize, d.n)];
        var layout: rd.ColumnLayout = .init(a.offset, a.cap);
        for (0..d.n) |k| {
            const e = rd.directoryEntry(entries, d.n, k);
            const c = layout.next(e.size);
            if (c > limit) return v.fail(error.MalformedArray, a.offset, 0);
            if (rd.wantedIndex(wanted, k, e.hash)) |j| {
                if (seen.isSet(j) or wanted[j].size != e.size) return v.fail(error.MalformedArray, a.offset, 0);
                seen.set(j);
            }
        }
        if (layout.pos > limit) return v.fail(error.MalformedArray, a.offset, 0);
        for (wanted) |c| try v.charge(@as(u64, a.cap) * c.size);
    }
};

/// The `3 × n` words of a column of `n` array references at `col`, or null
/// if the column does not fit the message.
fn columnRefs(r: Reader, col: u32, n: u32) ?[]const u32 {
    if (n == 0 or n > std.math.maxInt(u32) / 3) return null;
    const refs = r.slice(u32, col, 3 * n);
    if (refs.len == 0) return null;
    return refs;
}

/// Whether the `n` bytes at `offset` are ASCII, reading whole 8-byte words
/// where they lie inside the message; the bytes past `n` in the last word
/// are masked off. Text starts at any offset (its alignment is 1,
/// docs/format.md §5), so the word holding its last byte may run past the
/// end of the message: those bytes are then read one by one. False when
/// the text does not fit the message.
pub fn asciiWords(r: Reader, offset: u32, n: u32) bool {
    const end = @as(u64, offset) + n;
    if (end > r.mem.len) return false;
    var b = r.mem[offset..@intCast(end)];
    var high: u64 = 0;
    while (b.len >= 8) : (b = b[8..]) high |= std.mem.readInt(u64, b[0..8], .little);
    const k = b.len;
    if (k != 0) {
        const at = end - k;
        if (at + 8 <= r.mem.len) {
            const word = std.mem.readInt(u64, r.mem[@intCast(at)..][0..8], .little);
            high |= word & ((@as(u64, 1) << @intCast(8 * k)) - 1);
        } else {
            for (b) |c| high |= c;
        }
    }
    return high & 0x8080808080808080 == 0;
}

/// Lays out the columns of the SoA block at `block` of `capacity` with
/// `wanted`'s sizes (a directory `sameDirectory` accepted) into `out` when
/// given; false if the block ends past the message.
fn sameLayout(r: Reader, block: u32, capacity: u32, wanted: []const Column, out: ?[]u32) bool {
    const limit: u64 = r.mem.len;
    var layout: rd.ColumnLayout = .init(block, capacity);
    for (wanted, 0..) |c, j| {
        const col = layout.next(c.size);
        if (col > limit) return false;
        if (out) |o| o[j] = @intCast(col);
    }
    return layout.pos <= limit;
}

/// What one element of an SoA array with these columns costs the traversal
/// budget: its width, at least 1 (docs/format.md §10).
fn elementWidth(wanted: []const Column) u64 {
    var width: u64 = 0;
    for (wanted) |c| width += c.size;
    return @max(width, 1);
}

/// The columns whose charge is its minimum of 1 (none in generated schemas:
/// a column holds at least one byte).
fn zeroWidthColumns(wanted: []const Column) u64 {
    var n: u64 = 0;
    for (wanted) |c| n += @intFromBool(c.size == 0);
    return n;
}
