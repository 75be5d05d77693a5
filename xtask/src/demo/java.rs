//! A lexer and declaration parser for the subset of Java the demo corpus is
//! written in: one top-level type per file, single-type imports, classes,
//! interfaces, enums and annotation types (nested to any depth), fields with
//! one declarator, constructors and methods with bodies kept as token ranges.
//! No lambdas, anonymous classes, arrays, generic methods or records: the
//! parser refuses what it does not know, naming the file and line, so the
//! corpus cannot silently drift past what the model generator understands.

use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tk {
    Ident,
    Num,
    Str,
    Char,
    Punct,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: Tk,
    pub text: String,
    pub line: u32,
}

/// Tokens of one file, the Javadoc comment written right before a token (by
/// token index), and the lines that hold code.
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub docs: HashMap<usize, String>,
    pub code_lines: BTreeSet<u32>,
}

impl Lexed {
    /// Non-blank, non-comment lines in `start..=end` (the `sloc` metric).
    pub fn sloc(&self, start: u32, end: u32) -> usize {
        self.code_lines.range(start..=end).count()
    }
}

const OPERATORS: &[&str] = &[
    "->", "::", "++", "--", "&&", "||", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "...",
];

pub fn lex(path: &str, src: &str) -> Result<Lexed, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Lexed { tokens: Vec::new(), docs: HashMap::new(), code_lines: BTreeSet::new() };
    let mut pending_doc: Option<String> = None;
    let (mut i, mut line) = (0usize, 1u32);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && at(i + 1) == '*' {
            let start = i;
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && at(i + 1) == '/') {
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err(format!("{path}:{line}: unterminated comment"));
            }
            i += 2;
            let text: String = chars[start..i].iter().collect();
            if text.starts_with("/**") && text.len() > 4 {
                pending_doc = Some(javadoc_text(&text));
            }
            continue;
        }
        let start = i;
        let kind = if c.is_alphabetic() || c == '_' || c == '$' {
            while at(i).is_alphanumeric() || at(i) == '_' || at(i) == '$' {
                i += 1;
            }
            Tk::Ident
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' || at(i) == '.' {
                i += 1;
            }
            Tk::Num
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                if at(i) == '\n' {
                    return Err(format!("{path}:{line}: unterminated literal"));
                }
                i += 1;
            }
            i += 1;
            if c == '"' {
                Tk::Str
            } else {
                Tk::Char
            }
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let op = OPERATORS.iter().find(|op| rest.starts_with(**op));
            i += op.map_or(1, |op| op.len());
            Tk::Punct
        };
        if let Some(doc) = pending_doc.take() {
            out.docs.insert(out.tokens.len(), doc);
        }
        out.code_lines.insert(line);
        out.tokens.push(Token { kind, text: chars[start..i].iter().collect(), line });
    }
    Ok(out)
}

/// The text of a Javadoc comment as the extractor keeps it: without `/**`,
/// `*/` and the leading `*` of each line, outer blank lines dropped.
fn javadoc_text(comment: &str) -> String {
    let inner = &comment[3..comment.len() - 2];
    let lines: Vec<&str> = inner
        .lines()
        .map(|l| {
            let l = l.trim();
            let l = l.strip_prefix('*').unwrap_or(l);
            l.strip_prefix(' ').unwrap_or(l).trim_end()
        })
        .collect();
    let first = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
    let last = lines.iter().rposition(|l| !l.is_empty()).map_or(first, |p| p + 1);
    lines[first..last].join("\n")
}

/// A type as written: a dotted name and its type arguments (`Map<K, V>`; the
/// diamond `<>` has none).
#[derive(Clone, Debug)]
pub struct TypeSyntax {
    pub name: String,
    pub args: Vec<TypeSyntax>,
    pub line: u32,
}

/// A written annotation: its name, line and arguments (name, token range).
#[derive(Clone, Debug)]
pub struct Annotation {
    pub name: String,
    pub line: u32,
    pub args: Vec<(String, (usize, usize))>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: TypeSyntax,
    pub line: u32,
}

#[derive(Clone, Debug)]
pub struct FieldDecl {
    pub name: String,
    /// `None` for an enum constant (its type is the enum).
    pub ty: Option<TypeSyntax>,
    pub line: u32,
    pub doc: Option<String>,
    pub annotations: Vec<Annotation>,
    pub is_static: bool,
    pub is_final: bool,
    /// The initializer's tokens (after `=`), or an enum constant's arguments.
    pub init: Option<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub struct MethodDecl {
    /// `None` for a constructor.
    pub name: Option<String>,
    /// `None` for `void` and constructors.
    pub ret: Option<TypeSyntax>,
    pub params: Vec<Param>,
    pub throws: Vec<TypeSyntax>,
    pub line: u32,
    pub end_line: u32,
    pub doc: Option<String>,
    pub annotations: Vec<Annotation>,
    /// The tokens between the body's braces.
    pub body: Option<(usize, usize)>,
    /// An annotation element's `default` value tokens.
    pub default: Option<(usize, usize)>,
}

#[derive(Clone, Debug)]
pub struct TypeDecl {
    /// class, interface, enum or annotation.
    pub kind: &'static str,
    pub name: String,
    pub line: u32,
    pub end_line: u32,
    pub doc: Option<String>,
    pub annotations: Vec<Annotation>,
    pub extends: Vec<TypeSyntax>,
    pub implements: Vec<TypeSyntax>,
    pub fields: Vec<FieldDecl>,
    pub methods: Vec<MethodDecl>,
    pub nested: Vec<TypeDecl>,
}

#[derive(Clone, Debug)]
pub struct Import {
    pub fqn: String,
    pub line: u32,
}

/// One parsed `.java` file.
pub struct JavaFile {
    /// Path relative to the source root, `/`-separated.
    pub path: String,
    pub package: String,
    pub imports: Vec<Import>,
    pub ty: TypeDecl,
    pub lexed: Lexed,
}

pub fn parse(path: &str, src: &str) -> Result<JavaFile, String> {
    let lexed = lex(path, src)?;
    let (package, imports, ty) = {
        let mut p = Parser { t: &lexed.tokens, docs: &lexed.docs, i: 0, path };
        p.expect("package")?;
        let package = p.dotted()?;
        p.expect(";")?;
        let mut imports = Vec::new();
        while p.is("import") {
            let line = p.line();
            p.i += 1;
            if p.is("static") {
                return Err(p.err("static imports are not in the demo's Java subset"));
            }
            let fqn = p.dotted()?;
            p.expect(";")?;
            imports.push(Import { fqn, line });
        }
        let ty = p.type_decl()?;
        if p.i != p.t.len() {
            return Err(p.err("one top-level type per file"));
        }
        (package, imports, ty)
    };
    Ok(JavaFile { path: path.to_owned(), package, imports, ty, lexed })
}

const MODIFIERS: &[&str] = &["public", "private", "protected", "static", "final", "abstract", "transient", "volatile"];

#[derive(Clone)]
pub struct Parser<'a> {
    pub t: &'a [Token],
    pub docs: &'a HashMap<usize, String>,
    pub i: usize,
    pub path: &'a str,
}

impl<'a> Parser<'a> {
    pub fn text(&self, k: usize) -> &'a str {
        self.t.get(self.i + k).map_or("", |t| t.text.as_str())
    }

    pub fn is(&self, s: &str) -> bool {
        self.text(0) == s
    }

    pub fn kind(&self, k: usize) -> Option<Tk> {
        self.t.get(self.i + k).map(|t| t.kind)
    }

    pub fn line(&self) -> u32 {
        self.t.get(self.i).or(self.t.last()).map_or(0, |t| t.line)
    }

    pub fn err(&self, msg: &str) -> String {
        format!("{}:{}: {msg} (at {:?})", self.path, self.line(), self.text(0))
    }

    /// Consumes `s` if it is next.
    pub fn eat(&mut self, s: &str) -> bool {
        let here = self.is(s);
        if here {
            self.i += 1;
        }
        here
    }

    pub fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.is(s) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected {s:?}")))
        }
    }

    pub fn ident(&mut self) -> Result<String, String> {
        if self.kind(0) == Some(Tk::Ident) {
            self.i += 1;
            Ok(self.t[self.i - 1].text.clone())
        } else {
            Err(self.err("expected a name"))
        }
    }

    fn dotted(&mut self) -> Result<String, String> {
        let mut s = self.ident()?;
        while self.is(".") && self.kind(1) == Some(Tk::Ident) {
            self.i += 1;
            s.push('.');
            s.push_str(&self.ident()?);
        }
        Ok(s)
    }

    /// A type: `Name(.Name)*` with optional type arguments; `<>` is the diamond.
    pub fn type_syntax(&mut self) -> Result<TypeSyntax, String> {
        let line = self.line();
        let name = self.dotted()?;
        let mut args = Vec::new();
        if self.eat("<") {
            while !self.is(">") {
                if self.is("?") {
                    return Err(self.err("wildcards are not in the demo's Java subset"));
                }
                args.push(self.type_syntax()?);
                if !self.is(">") {
                    self.expect(",")?;
                }
            }
            self.i += 1;
        }
        if self.is("[") {
            return Err(self.err("arrays are not in the demo's Java subset"));
        }
        Ok(TypeSyntax { name, args, line })
    }

    /// Skips a balanced `open … close` group starting at the current token;
    /// returns the range inside it.
    pub fn group(&mut self, open: &str, close: &str) -> Result<(usize, usize), String> {
        self.expect(open)?;
        let start = self.i;
        let mut depth = 1;
        while depth > 0 {
            let Some(t) = self.t.get(self.i) else {
                return Err(self.err(&format!("unbalanced {open}")));
            };
            if t.kind == Tk::Punct && t.text == open {
                depth += 1;
            } else if t.kind == Tk::Punct && t.text == close {
                depth -= 1;
            }
            self.i += 1;
        }
        Ok((start, self.i - 1))
    }

    fn annotations(&mut self) -> Result<Vec<Annotation>, String> {
        let mut out = Vec::new();
        while self.is("@") && self.text(1) != "interface" {
            let line = self.line();
            self.i += 1;
            let name = self.dotted()?;
            let mut args = Vec::new();
            if self.is("(") {
                let (s, e) = self.group("(", ")")?;
                if s == e {
                } else if self.t[s].kind == Tk::Ident && self.t.get(s + 1).is_some_and(|t| t.text == "=") {
                    let mut k = s;
                    while k < e {
                        let name = self.t[k].text.clone();
                        let vs = k + 2;
                        let mut ve = vs;
                        while ve < e && self.t[ve].text != "," {
                            ve += 1;
                        }
                        args.push((name, (vs, ve)));
                        k = ve + 1;
                    }
                } else {
                    args.push(("value".to_owned(), (s, e)));
                }
            }
            out.push(Annotation { name, line, args });
        }
        Ok(out)
    }

    /// A type declaration (the file's top-level type or a nested one), with
    /// its Javadoc, annotations and members.
    fn type_decl(&mut self) -> Result<TypeDecl, String> {
        let doc = self.docs.get(&self.i).cloned();
        let annotations = self.annotations()?;
        let line = self.line();
        while MODIFIERS.contains(&self.text(0)) {
            self.i += 1;
        }
        let kind = match self.text(0) {
            "class" => "class",
            "interface" => "interface",
            "enum" => "enum",
            "@" if self.text(1) == "interface" => {
                self.i += 1;
                "annotation"
            }
            _ => return Err(self.err("expected a type declaration")),
        };
        self.i += 1;
        let name = self.ident()?;
        let mut ty = TypeDecl {
            kind,
            name,
            line,
            end_line: 0,
            doc,
            annotations,
            extends: Vec::new(),
            implements: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            nested: Vec::new(),
        };
        if self.is("<") {
            return Err(self.err("generic types are not in the demo's Java subset"));
        }
        if self.eat("extends") {
            ty.extends = self.type_list()?;
        }
        if self.eat("implements") {
            ty.implements = self.type_list()?;
        }
        self.expect("{")?;
        if kind == "enum" {
            self.enum_constants(&mut ty)?;
        }
        while !self.is("}") {
            if self.i >= self.t.len() {
                return Err(self.err("unterminated type body"));
            }
            if self.eat(";") {
                continue;
            }
            self.member(&mut ty)?;
        }
        ty.end_line = self.line();
        self.i += 1;
        Ok(ty)
    }

    fn type_list(&mut self) -> Result<Vec<TypeSyntax>, String> {
        let mut out = vec![self.type_syntax()?];
        while self.is(",") {
            self.i += 1;
            out.push(self.type_syntax()?);
        }
        Ok(out)
    }

    fn enum_constants(&mut self, ty: &mut TypeDecl) -> Result<(), String> {
        while self.kind(0) == Some(Tk::Ident) {
            let doc = self.docs.get(&self.i).cloned();
            let line = self.line();
            let name = self.ident()?;
            let init = if self.is("(") { Some(self.group("(", ")")?) } else { None };
            if self.is("{") {
                return Err(self.err("enum constant bodies are not in the demo's Java subset"));
            }
            ty.fields.push(FieldDecl {
                name,
                ty: None,
                line,
                doc,
                annotations: Vec::new(),
                is_static: true,
                is_final: true,
                init,
            });
            self.eat(",");
        }
        self.eat(";");
        Ok(())
    }

    fn member(&mut self, ty: &mut TypeDecl) -> Result<(), String> {
        let start = self.i;
        let doc = self.docs.get(&self.i).cloned();
        let annotations = self.annotations()?;
        let line = self.line();
        let (mut is_static, mut is_final) = (false, false);
        while MODIFIERS.contains(&self.text(0)) {
            is_static |= self.is("static");
            is_final |= self.is("final");
            self.i += 1;
        }
        if matches!(self.text(0), "class" | "interface" | "enum") || (self.is("@") && self.text(1) == "interface") {
            self.i = start;
            ty.nested.push(self.type_decl()?);
            return Ok(());
        }
        if self.is("<") {
            return Err(self.err("generic methods are not in the demo's Java subset"));
        }
        // Constructor: the type's own name followed by `(`.
        let (name, ret) = if self.text(0) == ty.name && self.is_at(1, "(") {
            self.i += 1;
            (None, None)
        } else {
            let ret = if self.eat("void") { None } else { Some(self.type_syntax()?) };
            (Some(self.ident()?), ret)
        };
        if !self.is("(") {
            let Some(name) = name else {
                return Err(self.err("expected a constructor"));
            };
            let init = if self.eat("=") {
                let s = self.i;
                let mut depth = 0i32;
                while !(depth == 0 && self.is(";")) {
                    match self.text(0) {
                        "(" | "{" => depth += 1,
                        ")" | "}" => depth -= 1,
                        "" => return Err(self.err("unterminated field initializer")),
                        _ => {}
                    }
                    self.i += 1;
                }
                Some((s, self.i))
            } else {
                None
            };
            if self.is(",") {
                return Err(self.err("one declarator per field"));
            }
            self.expect(";")?;
            ty.fields.push(FieldDecl { name, ty: ret, line, doc, annotations, is_static, is_final, init });
            return Ok(());
        }
        let params = self.params()?;
        let mut throws = Vec::new();
        if self.eat("throws") {
            throws = self.type_list()?;
        }
        let (mut body, mut default) = (None, None);
        let end_line;
        if self.is("{") {
            body = Some(self.group("{", "}")?);
            end_line = self.t[self.i - 1].line;
        } else {
            if self.eat("default") {
                let s = self.i;
                while !self.is(";") && self.i < self.t.len() {
                    self.i += 1;
                }
                default = Some((s, self.i));
            }
            end_line = self.line();
            self.expect(";")?;
        }
        ty.methods.push(MethodDecl { name, ret, params, throws, line, end_line, doc, annotations, body, default });
        Ok(())
    }

    fn is_at(&self, k: usize, s: &str) -> bool {
        self.text(k) == s
    }

    fn params(&mut self) -> Result<Vec<Param>, String> {
        self.expect("(")?;
        let mut out = Vec::new();
        while !self.is(")") {
            if !self.annotations()?.is_empty() {
                return Err(self.err("parameter annotations are not in the demo's Java subset"));
            }
            self.eat("final");
            let ty = self.type_syntax()?;
            let line = self.line();
            let name = self.ident()?;
            out.push(Param { name, ty, line });
            if !self.is(")") {
                self.expect(",")?;
            }
        }
        self.i += 1;
        Ok(out)
    }
}
