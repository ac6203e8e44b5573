//! The crate's own imports, file by file: every path into the crate a file of `src/`
//! uses (`use crate::…`, `use super::…`, a child module's items, `crate::x::y` in code)
//! resolved, through the re-exports on the way, to the file that defines what it
//! names. `tests/it/stages.rs` checks the graph they make against the layers of
//! docs/architecture.md.
//!
//! The reader is a small lexer (comments, strings, raw strings, char literals and
//! lifetimes skipped) and a name resolver over the module tree `src/lib.rs` declares:
//! a path is followed segment by segment through child modules, the items a module
//! declares, its `use` bindings (private ones too: a child module sees them) and its
//! glob imports. A path that starts with an external crate's name is not the crate's
//! own and is left out; a `crate::` or `super::` path that resolves to nothing is
//! reported, so the graph never drops an import silently. A unit test's module
//! (`#[cfg(test)] mod tests { … }`) is left out: it is no part of the library's flow,
//! and may drive the whole pipeline to test one piece of it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root (`["fix", "edit"]`; the root is empty).
pub type ModulePath = Vec<String>;

/// One import of a file: where it is written and the file it reaches.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Import {
    /// The importing file, relative to the repository root (`src/fix/edit.rs`).
    pub file: String,
    /// The line it is written on.
    pub line: usize,
    /// The path as written, `::`-joined (`crate::escape::controls`).
    pub written: String,
    /// The file that defines what the path names.
    pub target: String,
}

/// What a file's imports and paths reached, with what could not be resolved.
pub struct Graph {
    /// Each library file (relative to the repository root) and its module path.
    pub files: BTreeMap<String, ModulePath>,
    /// Every import between two different files, in file and line order.
    pub imports: Vec<Import>,
    /// `crate::`/`super::`/`self::` paths that name nothing the reader found.
    pub unresolved: Vec<String>,
    /// `pub use path::*`: a glob re-export, which hides where a name is defined.
    pub glob_reexports: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

/// The tokens of a Rust file with their lines: identifiers, `::` and punctuation;
/// comments, literals and lifetimes dropped.
fn tokens(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&chars, i) {
            line += chars[i..end].iter().filter(|&&c| c == '\n').count();
            i = end;
        } else if c == '"' || ((c == 'b' || c == 'c') && at(i + 1) == '"') {
            i += if c == '"' { 1 } else { 2 };
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let start = if c == '\'' { i + 1 } else { i + 2 };
            if at(start) == '\\' {
                // An escaped char literal: up to its closing quote.
                i = start + 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(start + 1) == '\'' {
                i = start + 2;
            } else {
                // A lifetime or a label: its name is no path.
                i = start;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            if c == 'r' && at(i + 1) == '#' {
                i += 2;
            }
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            out.push((Token::Ident(name), line));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Token::PathSep, line));
            i += 2;
        } else {
            out.push((Token::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// Where the raw string literal starting at `i` ends (`r"…"`, `r#"…"#`, `br#"…"#`),
/// if one starts there.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let mut j = i;
    if matches!(chars.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// One name a `use` binds (or a glob it opens), with the path it stands for.
#[derive(Clone, Debug)]
struct Binding {
    /// The path as written, first segment `crate`, `super`, `self` or a name in scope.
    path: Vec<String>,
    /// The name it binds (`None` for a glob or `as _`).
    name: Option<String>,
    glob: bool,
    public: bool,
    line: usize,
}

/// A path written in code (not in a `use`), from its first segment.
#[derive(Clone, Debug)]
struct CodePath {
    path: Vec<String>,
    line: usize,
    /// Followed by `!`: a macro.
    macro_call: bool,
}

#[derive(Default, Debug)]
struct Module {
    file: String,
    children: BTreeSet<String>,
    items: BTreeSet<String>,
    bindings: Vec<Binding>,
    paths: Vec<CodePath>,
}

/// The module tree: each module's file, children, items, `use` bindings and paths.
struct Tree {
    modules: BTreeMap<ModulePath, Module>,
    /// `#[macro_export]` macros, which live at the crate root, by name: their file.
    exported_macros: BTreeMap<String, String>,
}

fn ident(token: Option<&(Token, usize)>) -> Option<&str> {
    match token {
        Some((Token::Ident(name), _)) => Some(name),
        _ => None,
    }
}

fn is_punct(token: Option<&(Token, usize)>, c: char) -> bool {
    matches!(token, Some((Token::Punct(p), _)) if *p == c)
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "Self",
];

/// Reads one file into the tree: its module (and inline modules), their items, `use`
/// bindings and the crate paths in code.
fn read_file(tree: &mut Tree, file: &str, module: ModulePath, text: &str) {
    let tokens = tokens(text);
    // The modules open at this point, with the brace depth of their bodies and whether
    // they are unit tests (`#[cfg(test)] mod tests { … }`).
    let mut open: Vec<(ModulePath, usize, bool)> = vec![(module.clone(), 0, false)];
    tree.modules.entry(module).or_default().file = file.to_owned();
    let mut depth = 0;
    // The bodies of macros called at module level (`declare_rule! { pub struct … }`),
    // by depth: the items they declare are the module's.
    let mut macro_bodies: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (current, body, test) = open.last().cloned().unwrap();
        let at_module_level = depth == body || macro_bodies.last() == Some(&depth);
        match &tokens[i].0 {
            Token::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Token::Punct('}') => {
                depth -= 1;
                if depth < body {
                    open.pop();
                }
                if macro_bodies.last().is_some_and(|&d| depth < d) {
                    macro_bodies.pop();
                }
                i += 1;
            }
            Token::Ident(word)
                if at_module_level
                    && word != "macro_rules"
                    && is_punct(tokens.get(i + 1), '!')
                    && is_punct(tokens.get(i + 2), '{') =>
            {
                depth += 1;
                macro_bodies.push(depth);
                i += 3;
            }
            Token::Ident(word) if word == "use" && !is_punct(tokens.get(i + 1), '!') => {
                let public = i > 0
                    && (ident(tokens.get(i - 1)) == Some("pub")
                        || (is_punct(tokens.get(i - 1), ')')
                            && tokens[..i]
                                .iter()
                                .rev()
                                .take(6)
                                .any(|(t, _)| *t == Token::Ident("pub".into()))));
                let mut j = i + 1;
                // `use $crate::…` in a macro's body, `use ::name`.
                if is_punct(tokens.get(j), '$') {
                    j += 1;
                }
                if tokens.get(j).map(|t| &t.0) == Some(&Token::PathSep) {
                    j += 1;
                }
                let mut bindings = Vec::new();
                j = use_tree(&tokens, j, Vec::new(), public, &mut bindings);
                if !test {
                    let module = tree.modules.get_mut(&current).unwrap();
                    module.bindings.extend(bindings);
                }
                // Up to the `;`.
                while j < tokens.len() && !is_punct(tokens.get(j), ';') {
                    j += 1;
                }
                i = j + 1;
            }
            Token::Ident(word) if at_module_level && word == "mod" => {
                let Some(name) = ident(tokens.get(i + 1)) else {
                    i += 1;
                    continue;
                };
                let name = name.to_owned();
                let mut child = current.clone();
                child.push(name.clone());
                tree.modules
                    .get_mut(&current)
                    .unwrap()
                    .children
                    .insert(name);
                if is_punct(tokens.get(i + 2), '{') {
                    tree.modules.entry(child.clone()).or_default().file = file.to_owned();
                    depth += 1;
                    let cfg_test = i >= 7
                        && tokens[i - 7..i]
                            .iter()
                            .map(|(t, _)| match t {
                                Token::Ident(name) => name.clone(),
                                Token::Punct(c) => c.to_string(),
                                Token::PathSep => "::".into(),
                            })
                            .eq(["#", "[", "cfg", "(", "test", ")", "]"]);
                    open.push((child, depth, test || cfg_test));
                    i += 3;
                } else {
                    i += 2;
                }
            }
            Token::Ident(word)
                if at_module_level
                    && matches!(
                        word.as_str(),
                        "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
                    ) =>
            {
                let mut j = i + 1;
                if ident(tokens.get(j)) == Some("mut") {
                    j += 1;
                }
                if let Some(name) = ident(tokens.get(j))
                    && !KEYWORDS.contains(&name)
                    && (word != "union" || ident(tokens.get(j + 1)).is_none())
                {
                    let name = name.to_owned();
                    tree.modules.get_mut(&current).unwrap().items.insert(name);
                }
                i += 1;
            }
            Token::Ident(word) if word == "macro_rules" && is_punct(tokens.get(i + 1), '!') => {
                if let Some(name) = ident(tokens.get(i + 2)) {
                    tree.modules
                        .get_mut(&current)
                        .unwrap()
                        .items
                        .insert(name.to_owned());
                    let exported = tokens[i.saturating_sub(8)..i]
                        .iter()
                        .any(|(t, _)| *t == Token::Ident("macro_export".into()));
                    if exported {
                        tree.exported_macros
                            .insert(name.to_owned(), file.to_owned());
                    }
                }
                i += 3;
            }
            Token::Ident(word) if tokens.get(i + 1).map(|t| &t.0) == Some(&Token::PathSep) => {
                let starts_path = i == 0 || !matches!(tokens[i - 1].0, Token::PathSep);
                let line = tokens[i].1;
                let mut path = vec![word.clone()];
                let mut j = i + 1;
                while tokens.get(j).map(|t| &t.0) == Some(&Token::PathSep) {
                    match ident(tokens.get(j + 1)) {
                        Some(next) => {
                            path.push(next.to_owned());
                            j += 2;
                        }
                        None => break,
                    }
                }
                if starts_path && path.len() > 1 && !test {
                    let macro_call = is_punct(tokens.get(j), '!');
                    tree.modules
                        .get_mut(&current)
                        .unwrap()
                        .paths
                        .push(CodePath {
                            path,
                            line,
                            macro_call,
                        });
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}

/// Reads a use tree from `j` with the path so far, adding each name it binds; returns
/// where it ends.
fn use_tree(
    tokens: &[(Token, usize)],
    mut j: usize,
    mut prefix: Vec<String>,
    public: bool,
    out: &mut Vec<Binding>,
) -> usize {
    loop {
        let line = tokens.get(j).map_or(0, |t| t.1);
        if is_punct(tokens.get(j), '{') {
            j += 1;
            loop {
                if is_punct(tokens.get(j), '}') {
                    return j + 1;
                }
                j = use_tree(tokens, j, prefix.clone(), public, out);
                if is_punct(tokens.get(j), ',') {
                    j += 1;
                } else if is_punct(tokens.get(j), '}') {
                    return j + 1;
                } else {
                    // Not a use tree this reader knows: stop here.
                    return j;
                }
            }
        }
        if is_punct(tokens.get(j), '*') {
            out.push(Binding {
                path: prefix,
                name: None,
                glob: true,
                public,
                line,
            });
            return j + 1;
        }
        let Some(segment) = ident(tokens.get(j)) else {
            return j;
        };
        j += 1;
        if segment == "self" && !prefix.is_empty() {
            // `use a::b::{self}`: the module itself, under its own name.
            let name = prefix.last().cloned();
            let name = if ident(tokens.get(j)) == Some("as") {
                j += 2;
                ident(tokens.get(j - 1)).map(str::to_owned)
            } else {
                name
            };
            out.push(Binding {
                path: prefix,
                name: name.filter(|n| n != "_"),
                glob: false,
                public,
                line,
            });
            return j;
        }
        prefix.push(segment.to_owned());
        if tokens.get(j).map(|t| &t.0) == Some(&Token::PathSep) {
            j += 1;
            continue;
        }
        let name = if ident(tokens.get(j)) == Some("as") {
            j += 2;
            ident(tokens.get(j - 1)).map(str::to_owned)
        } else {
            Some(segment.to_owned())
        };
        out.push(Binding {
            path: prefix,
            name: name.filter(|n| n != "_"),
            glob: false,
            public,
            line,
        });
        return j;
    }
}

/// What a path resolves to: a module, or an item defined in a file.
#[derive(Clone, Debug, PartialEq)]
enum Resolved {
    Module(ModulePath),
    Item(String),
}

impl Tree {
    fn file_of(&self, module: &ModulePath) -> String {
        self.modules[module].file.clone()
    }

    /// `path` as written in `module`. `None`: not the crate's own (an external crate,
    /// the standard library, the prelude), or a path this reader cannot follow.
    fn resolve(&self, module: &ModulePath, path: &[String]) -> Option<Resolved> {
        let mut seen = BTreeSet::new();
        self.resolve_in(module, path, &mut seen)
    }

    fn resolve_in(
        &self,
        module: &ModulePath,
        path: &[String],
        seen: &mut BTreeSet<(ModulePath, String)>,
    ) -> Option<Resolved> {
        let (first, rest) = path.split_first()?;
        let mut current = match first.as_str() {
            "crate" => Resolved::Module(Vec::new()),
            "self" => Resolved::Module(module.clone()),
            "super" => Resolved::Module(module[..module.len().checked_sub(1)?].to_vec()),
            name => self.lookup(module, name, !rest.is_empty(), seen)?,
        };
        for (index, segment) in rest.iter().enumerate() {
            let Resolved::Module(at) = &current else {
                // An item's associated items and variants are its own file's.
                break;
            };
            current = if segment == "super" {
                Resolved::Module(at[..at.len().checked_sub(1)?].to_vec())
            } else {
                self.lookup(at, segment, index + 1 < rest.len(), seen)?
            };
        }
        Some(current)
    }

    /// The name `name` in the scope of `module`: a child module, an item it declares,
    /// a name a `use` binds there, or one a glob import there brings in.
    fn lookup(
        &self,
        module: &ModulePath,
        name: &str,
        more_follows: bool,
        seen: &mut BTreeSet<(ModulePath, String)>,
    ) -> Option<Resolved> {
        if !seen.insert((module.clone(), name.to_owned())) {
            return None;
        }
        let found = self.lookup_once(module, name, more_follows, seen);
        seen.remove(&(module.clone(), name.to_owned()));
        found
    }

    fn lookup_once(
        &self,
        module: &ModulePath,
        name: &str,
        more_follows: bool,
        seen: &mut BTreeSet<(ModulePath, String)>,
    ) -> Option<Resolved> {
        let at = self.modules.get(module)?;
        let child = at.children.contains(name).then(|| {
            let mut child = module.clone();
            child.push(name.to_owned());
            Resolved::Module(child)
        });
        let item = at
            .items
            .contains(name)
            .then(|| Resolved::Item(at.file.clone()));
        // A name that is both a module and a function: the module when the path goes on.
        match (child, item) {
            (Some(child), Some(item)) => return Some(if more_follows { child } else { item }),
            (Some(found), None) | (None, Some(found)) => return Some(found),
            (None, None) => {}
        }
        for binding in at.bindings.iter().filter(|b| !b.glob) {
            if binding.name.as_deref() == Some(name)
                && let Some(found) = self.resolve_in(module, &binding.path, seen)
            {
                return Some(found);
            }
        }
        for binding in at.bindings.iter().filter(|b| b.glob) {
            if let Some(Resolved::Module(glob)) = self.resolve_in(module, &binding.path, seen)
                && let Some(found) = self.lookup(&glob, name, more_follows, seen)
            {
                return Some(found);
            }
        }
        None
    }
}

/// The module path a file under `src/` stands for by Rust's layout (`src/fix/mod.rs`
/// and `src/fix.rs` are `fix`); `None` for the binaries' roots.
fn module_of(relative: &Path) -> Option<ModulePath> {
    let parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let (last, dirs) = parts.split_last()?;
    if dirs.first().map(String::as_str) == Some("bin") || parts == ["main.rs"] {
        return None;
    }
    let stem = last.strip_suffix(".rs")?;
    let mut module = dirs.to_vec();
    if stem != "mod" && stem != "lib" {
        module.push(stem.to_owned());
    }
    Some(module)
}

/// Reads every library file under `root/src` and resolves its imports.
pub fn graph(root: &Path) -> Graph {
    let src = root.join("src");
    let mut tree = Tree {
        modules: BTreeMap::new(),
        exported_macros: BTreeMap::new(),
    };
    let mut files = BTreeMap::new();
    for path in super::rust_files(&src) {
        let relative = path.strip_prefix(&src).unwrap();
        let Some(module) = module_of(relative) else {
            continue;
        };
        let name = format!("src/{}", relative.display());
        let text = std::fs::read_to_string(&path).unwrap();
        read_file(&mut tree, &name, module.clone(), &text);
        files.insert(name, module);
    }
    let mut imports = BTreeSet::new();
    let mut unresolved = Vec::new();
    let mut glob_reexports = Vec::new();
    for (module_path, module) in &tree.modules {
        let file = &module.file;
        let mut add = |line: usize, written: &[String], target: String| {
            if target != *file {
                imports.insert(Import {
                    file: file.clone(),
                    line,
                    written: written.join("::"),
                    target,
                });
            }
        };
        for binding in &module.bindings {
            let internal = matches!(binding.path[0].as_str(), "crate" | "super" | "self");
            match tree.resolve(module_path, &binding.path) {
                Some(Resolved::Item(target)) => add(binding.line, &binding.path, target),
                // A glob opens the whole module; a module bound by name is reached
                // through the paths that use it.
                Some(Resolved::Module(target)) if binding.glob => {
                    add(binding.line, &binding.path, tree.file_of(&target));
                    if binding.public {
                        glob_reexports.push(format!(
                            "{file}:{} pub use {}::*",
                            binding.line,
                            binding.path.join("::")
                        ));
                    }
                }
                Some(Resolved::Module(_)) => {}
                None if internal => unresolved.push(format!(
                    "{file}:{} use {}",
                    binding.line,
                    binding.path.join("::")
                )),
                None => {}
            }
        }
        for code in &module.paths {
            let first = code.path[0].as_str();
            let internal = matches!(first, "crate" | "super" | "self");
            if code.macro_call && first == "crate" && code.path.len() == 2 {
                match tree.exported_macros.get(&code.path[1]) {
                    Some(target) => add(code.line, &code.path, target.clone()),
                    None => {
                        unresolved.push(format!("{file}:{} {}!", code.line, code.path.join("::")))
                    }
                }
                continue;
            }
            // A path from a name that is not the crate's own module (a type, an
            // external crate) was reached, if at all, by the `use` that bound it.
            if !internal
                && !matches!(
                    tree.resolve(module_path, &code.path[..1]),
                    Some(Resolved::Module(_))
                )
            {
                continue;
            }
            match tree.resolve(module_path, &code.path) {
                Some(Resolved::Item(target)) => add(code.line, &code.path, target),
                Some(Resolved::Module(_)) => {}
                None => unresolved.push(format!("{file}:{} {}", code.line, code.path.join("::"))),
            }
        }
    }
    Graph {
        files,
        imports: imports.into_iter().collect(),
        unresolved,
        glob_reexports,
    }
}

/// The strongly connected components of the file graph with more than one file: the
/// circles, each as its files in order (Tarjan's algorithm).
pub fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let names: Vec<&String> = graph.files.keys().collect();
    let index_of: BTreeMap<&String, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut edges = vec![BTreeSet::new(); names.len()];
    for import in &graph.imports {
        if let (Some(&from), Some(&to)) = (index_of.get(&import.file), index_of.get(&import.target))
        {
            edges[from].insert(to);
        }
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    fn connect(v: usize, edges: &[BTreeSet<usize>], s: &mut State) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &edges[v] {
            match s.index[w] {
                None => {
                    connect(w, edges, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut state = State {
        index: vec![None; names.len()],
        low: vec![0; names.len()],
        on_stack: vec![false; names.len()],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..names.len() {
        if state.index[v].is_none() {
            connect(v, &edges, &mut state);
        }
    }
    let mut circles: Vec<Vec<String>> = state
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut files: Vec<String> = c.into_iter().map(|i| names[i].clone()).collect();
            files.sort();
            files
        })
        .collect();
    circles.sort();
    circles
}
