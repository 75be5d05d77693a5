//! From parsed Java to the model: resolves every type name, declares the
//! entities and walks each body for what it really does — calls,
//! field reads and writes, `new`, `throw`, casts and `instanceof`, locals —
//! emitting the edges the Java extractor emits. Anything outside the
//! demo's subset, or a name it cannot resolve, is an error naming the line.

use super::java::{Annotation, JavaFile, Parser, Tk, Token, TypeDecl, TypeSyntax};
use model::builder::{Key, ModelBuilder, Ref};
use model::{Literal, NamedArgument};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The header's `root`: where the corpus lives, relative to the workspace.
pub const ROOT: &str = "fixtures/demo/src/main/java";
const EXTRACTOR: &str = r#"{"name":"cargo-xtask-demo","version":"0.1.0"}"#;

const PRIMITIVES: &[&str] = &["boolean", "byte", "char", "short", "int", "long", "float", "double"];
/// The `java.lang` types the corpus may name without an import.
const JAVA_LANG: &[&str] = &[
    "Deprecated",
    "Exception",
    "IllegalArgumentException",
    "IllegalStateException",
    "Integer",
    "Long",
    "Math",
    "Object",
    "Override",
    "RuntimeException",
    "String",
    "Throwable",
];
/// JDK methods the corpus calls on its own types, with the JDK class that
/// declares them (members are never stubbed: the call targets that type).
const JDK_INHERITED: &[(&str, &str)] = &[("getMessage", "java.lang.Throwable")];

/// The static type of an expression, as far as the walk needs it.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Corpus(usize),
    Ext(String),
    Prim(String),
    Null,
    Unknown,
    /// A type name used as an expression (`Money.ofCents`, `Status.ACTIVE`).
    Class(Box<Ty>),
}

struct TypeInfo<'a> {
    decl: &'a TypeDecl,
    file: usize,
    package: String,
    fqn: String,
    outer: Option<usize>,
    nested: Vec<usize>,
    r: Ref,
    supers: Vec<Ty>,
    superclass: Option<Ty>,
    fields: Vec<(String, Ty, Ref)>,
    /// Methods (named) and constructors (`name` None), with erased parameter types.
    methods: Vec<MethodInfo>,
}

struct MethodInfo {
    name: Option<String>,
    params: Vec<Ty>,
    ret: Ty,
    r: Ref,
}

#[derive(Default)]
struct Extra {
    read: bool,
    write: bool,
    arguments: Option<Vec<NamedArgument<Ref>>>,
}

type EdgeKey = (&'static str, Ref, Ref, usize, u32);

pub struct Gen<'a> {
    files: &'a [JavaFile],
    b: ModelBuilder,
    types: Vec<TypeInfo<'a>>,
    by_fqn: HashMap<String, usize>,
    stubs: HashMap<String, Ref>,
    stub_packages: BTreeSet<String>,
    edges: BTreeMap<EdgeKey, Extra>,
}

/// Builds the model of the parsed files (sorted by path).
pub fn build(files: &[JavaFile]) -> Result<ModelBuilder, String> {
    let mut g = Gen {
        files,
        b: ModelBuilder::new("java", ROOT),
        types: Vec::new(),
        by_fqn: HashMap::new(),
        stubs: HashMap::new(),
        stub_packages: BTreeSet::new(),
        edges: BTreeMap::new(),
    };
    g.b.extractor(EXTRACTOR);
    for (f, file) in files.iter().enumerate() {
        g.b.file(&file.path);
        g.collect(f, &file.ty, None);
    }
    g.packages();
    g.declare()?;
    g.all_edges()?;
    let edges = std::mem::take(&mut g.edges);
    for ((kind, from, to, file, line), x) in edges {
        let mut e = g.b.edge(kind, from, to, "declared", (&files[file].path, line, line));
        if kind == "access" {
            e.access(x.read, x.write);
        }
        if let Some(a) = x.arguments.filter(|a| !a.is_empty()) {
            e.arguments(a);
        }
    }
    Ok(g.b)
}

fn unescape(lit: &str) -> String {
    let inner = &lit[1..lit.len() - 1];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(c) => out.push(c),
            None => {}
        }
    }
    out
}

/// Canonical decimal text of an integer literal (`4_320L` → `4320`).
fn number(text: &str) -> String {
    let t = text.replace('_', "");
    let t = t.trim_end_matches(['L', 'l']);
    t.parse::<i64>().map_or(t.to_owned(), |n| n.to_string())
}

impl<'a> Gen<'a> {
    fn collect(&mut self, file: usize, decl: &'a TypeDecl, outer: Option<usize>) {
        let package = self.files[file].package.clone();
        let symbol_parent = outer.map(|o| self.types[o].fqn[package.len() + 1..].to_owned());
        let symbol = match symbol_parent {
            Some(p) => format!("{p}.{}", decl.name),
            None => decl.name.clone(),
        };
        let fqn = format!("{package}.{symbol}");
        let idx = self.types.len();
        self.by_fqn.insert(fqn.clone(), idx);
        let r = self.b.r(Key::new(package.clone(), symbol));
        self.types.push(TypeInfo {
            decl,
            file,
            package,
            fqn,
            outer,
            nested: Vec::new(),
            r,
            supers: Vec::new(),
            superclass: None,
            fields: Vec::new(),
            methods: Vec::new(),
        });
        if let Some(o) = outer {
            self.types[o].nested.push(idx);
        }
        for n in &decl.nested {
            self.collect(file, n, Some(idx));
        }
    }

    /// Corpus packages: a package's parent is the nearest ancestor package
    /// that holds corpus types.
    fn packages(&mut self) {
        let packages: BTreeSet<String> = self.files.iter().map(|f| f.package.clone()).collect();
        for p in &packages {
            let parent = packages.iter().filter(|q| p.starts_with(&format!("{q}."))).max_by_key(|q| q.len());
            match parent {
                Some(q) => {
                    let q = self.b.r(Key::module(q.clone()));
                    self.b.java_subpackage(p, q);
                }
                None => {
                    self.b.java_package(p);
                }
            }
        }
    }

    fn stub(&mut self, fqn: &str) -> Ref {
        if let Some(&r) = self.stubs.get(fqn) {
            return r;
        }
        let (package, simple) = fqn.rsplit_once('.').expect("a qualified JDK name");
        self.stub_package(package);
        let r = self.b.java_stub_type(package, simple).id();
        self.stubs.insert(fqn.to_owned(), r);
        r
    }

    fn stub_package(&mut self, package: &str) -> Ref {
        if self.stub_packages.insert(package.to_owned()) {
            self.b.java_stub_package(package);
        }
        self.b.r(Key::module(package))
    }

    /// The entity a type stands for (`None` for primitives and the like).
    fn type_ref(&mut self, ty: &Ty) -> Option<Ref> {
        match ty {
            Ty::Corpus(t) => Some(self.types[*t].r),
            Ty::Ext(f) => Some(self.stub(f)),
            Ty::Class(inner) => self.type_ref(inner),
            _ => None,
        }
    }

    /// Resolves a (possibly dotted) type name written in `file` inside type `scope`.
    fn resolve(&self, name: &str, file: usize, scope: Option<usize>) -> Option<Ty> {
        if PRIMITIVES.contains(&name) {
            return Some(Ty::Prim(name.to_owned()));
        }
        let mut parts = name.split('.');
        let first = parts.next()?;
        let mut found = None;
        let mut s = scope;
        while let Some(t) = s {
            if self.types[t].decl.name == first {
                found = Some(Ty::Corpus(t));
                break;
            }
            if let Some(&n) = self.types[t].nested.iter().find(|&&n| self.types[n].decl.name == first) {
                found = Some(Ty::Corpus(n));
                break;
            }
            s = self.types[t].outer;
        }
        let f = &self.files[file];
        if found.is_none() {
            if let Some(imp) = f.imports.iter().find(|i| i.fqn.rsplit('.').next() == Some(first)) {
                found = Some(match self.by_fqn.get(&imp.fqn) {
                    Some(&t) => Ty::Corpus(t),
                    None => Ty::Ext(imp.fqn.clone()),
                });
            }
        }
        if found.is_none() {
            found = self.by_fqn.get(&format!("{}.{first}", f.package)).map(|&t| Ty::Corpus(t));
        }
        if found.is_none() && JAVA_LANG.contains(&first) {
            found = Some(Ty::Ext(format!("java.lang.{first}")));
        }
        let mut ty = found?;
        for part in parts {
            let Ty::Corpus(t) = ty else { return None };
            ty = Ty::Corpus(*self.types[t].nested.iter().find(|&&n| self.types[n].decl.name == part)?);
        }
        Some(ty)
    }

    fn resolve_or_err(&self, ts: &TypeSyntax, file: usize, scope: usize) -> Result<Ty, String> {
        self.resolve(&ts.name, file, Some(scope))
            .ok_or_else(|| format!("{}:{}: cannot resolve type {}", self.files[file].path, ts.line, ts.name))
    }

    /// The erased FQN of a parameter type.
    fn erased(&self, ty: &Ty) -> String {
        match ty {
            Ty::Corpus(t) => self.types[*t].fqn.clone(),
            Ty::Ext(f) => f.clone(),
            Ty::Prim(p) => p.clone(),
            _ => "?".to_owned(),
        }
    }

    /// Declares every type and member, with anchors, comments, metrics and values.
    fn declare(&mut self) -> Result<(), String> {
        for t in 0..self.types.len() {
            let (decl, file) = (self.types[t].decl, self.types[t].file);
            let f = &self.files[file];
            let owner = match self.types[t].outer {
                Some(o) => self.types[o].r,
                None => self.b.r(Key::module(self.types[t].package.clone())),
            };
            let mut e = self.b.java_type(decl.kind, owner, &decl.name);
            e.anchor(&f.path, decl.line, decl.end_line);
            if let Some(doc) = &decl.doc {
                e.doc(doc);
            }
            e.measure("sloc", f.lexed.sloc(decl.line, decl.end_line) as f64);
        }
        for t in 0..self.types.len() {
            let (decl, file) = (self.types[t].decl, self.types[t].file);
            let mut supers = Vec::new();
            for ts in decl.extends.iter().chain(&decl.implements) {
                supers.push(self.resolve_or_err(ts, file, t)?);
            }
            let superclass = if decl.kind == "class" { decl.extends.first().map(|_| supers[0].clone()) } else { None };
            self.types[t].supers = supers;
            self.types[t].superclass = superclass;
        }
        for t in 0..self.types.len() {
            self.declare_members(t)?;
        }
        Ok(())
    }

    fn declare_members(&mut self, t: usize) -> Result<(), String> {
        let (decl, file, owner) = (self.types[t].decl, self.types[t].file, self.types[t].r);
        let f = &self.files[file];
        let toks = &f.lexed.tokens;
        for fd in &decl.fields {
            let ty = match &fd.ty {
                Some(ts) => self.resolve_or_err(ts, file, t)?,
                None => Ty::Corpus(t),
            };
            let declared = self.type_ref(&ty);
            let constant: Option<Literal<Ref>> = match fd.init {
                Some((s, e)) if fd.ty.is_some() && fd.is_static && fd.is_final && e == s + 1 => match toks[s].kind {
                    Tk::Str => Some(Literal::String(unescape(&toks[s].text))),
                    Tk::Num => Some(Literal::Number(number(&toks[s].text))),
                    _ => None,
                },
                _ => None,
            };
            let mut e = self.b.java_field(owner, &fd.name);
            e.at(fd.line, fd.line);
            if let Some(r) = declared {
                e.declared_type(r);
            }
            if let Some(doc) = &fd.doc {
                e.doc(doc);
            }
            if let Some(v) = constant {
                e.constant(v);
            }
            let r = e.id();
            self.types[t].fields.push((fd.name.clone(), ty, r));
        }
        let mut has_constructor = false;
        for md in &decl.methods {
            let mut params = Vec::new();
            for p in &md.params {
                params.push(self.resolve_or_err(&p.ty, file, t)?);
            }
            let ret = match &md.ret {
                Some(ts) => self.resolve_or_err(ts, file, t)?,
                None => Ty::Prim("void".to_owned()),
            };
            let fqns: Vec<String> = params.iter().map(|p| self.erased(p)).collect();
            let fqns: Vec<&str> = fqns.iter().map(String::as_str).collect();
            let declared = self.type_ref(&ret);
            let param_refs: Vec<Option<Ref>> = params.iter().map(|p| self.type_ref(p)).collect();
            let cyclomatic = 1 + md.body.map_or(0, |(s, e)| {
                toks[s..e]
                    .iter()
                    .filter(|t| {
                        matches!(
                            (t.kind, t.text.as_str()),
                            (Tk::Ident, "if" | "for" | "while" | "case" | "catch") | (Tk::Punct, "?" | "&&" | "||")
                        )
                    })
                    .count()
            });
            let default: Option<Literal<Ref>> = match md.default {
                Some((s, e)) if e == s + 1 && toks[s].kind == Tk::Str => Some(Literal::String(unescape(&toks[s].text))),
                Some(_) => return Err(format!("{}:{}: only string defaults are supported", f.path, md.line)),
                None => None,
            };
            let mut e = match &md.name {
                Some(name) => self.b.java_method(owner, name, &fqns),
                None => {
                    has_constructor = true;
                    self.b.java_constructor(owner, &fqns)
                }
            };
            e.at(md.line, md.end_line);
            if let Some(r) = declared {
                e.declared_type(r);
            }
            if let Some(doc) = &md.doc {
                e.doc(doc);
            }
            e.measure("cyclomatic", cyclomatic as f64).measure("sloc", f.lexed.sloc(md.line, md.end_line) as f64);
            if let Some(v) = default {
                e.constant(v);
            }
            let r = e.id();
            for (p, pr) in md.params.iter().zip(&param_refs) {
                let mut pe = self.b.java_param(r, &p.name);
                pe.at(p.line, p.line);
                if let Some(pr) = pr {
                    pe.declared_type(*pr);
                }
            }
            self.types[t].methods.push(MethodInfo { name: md.name.clone(), params, ret, r });
        }
        if !has_constructor && matches!(decl.kind, "class" | "enum") {
            let r = self.b.java_implicit_constructor(owner).id();
            self.types[t].methods.push(MethodInfo { name: None, params: Vec::new(), ret: Ty::Unknown, r });
        }
        Ok(())
    }

    fn edge(&mut self, kind: &'static str, from: Ref, to: Ref, file: usize, line: u32) -> &mut Extra {
        self.edges.entry((kind, from, to, file, line)).or_default()
    }

    /// `reference` edges from `from` to every type written in `ts`; returns its type.
    fn syntax_refs(&mut self, from: Ref, ts: &TypeSyntax, file: usize, scope: usize) -> Result<Ty, String> {
        let ty = self.resolve_or_err(ts, file, scope)?;
        if let Some(to) = self.type_ref(&ty) {
            self.edge("reference", from, to, file, ts.line);
        }
        for a in &ts.args {
            self.syntax_refs(from, a, file, scope)?;
        }
        Ok(ty)
    }

    /// An annotation argument as a Literal; an enum constant also references its type.
    fn literal(&mut self, range: (usize, usize), file: usize, scope: usize, from: Ref, line: u32) -> Literal<Ref> {
        let toks = &self.files[file].lexed.tokens[range.0..range.1];
        match toks {
            [t] if t.kind == Tk::Str => Literal::String(unescape(&t.text)),
            [t] if t.kind == Tk::Num => Literal::Number(number(&t.text)),
            [t] if t.text == "true" || t.text == "false" => Literal::Boolean(t.text == "true"),
            [ty, dot, name] if dot.text == "." && name.kind == Tk::Ident => {
                match self.resolve(&ty.text, file, Some(scope)).and_then(|t| self.type_ref(&t)) {
                    Some(r) => {
                        self.edge("reference", from, r, file, line);
                        Literal::Enum { ty: r, name: name.text.clone() }
                    }
                    None => Literal::Unevaluated(toks.iter().map(|t| t.text.as_str()).collect()),
                }
            }
            _ => Literal::Unevaluated(toks.iter().map(|t| t.text.as_str()).collect()),
        }
    }

    fn annotation_uses(&mut self, from: Ref, anns: &[Annotation], file: usize, scope: usize) -> Result<(), String> {
        for a in anns {
            let ts = TypeSyntax { name: a.name.clone(), args: Vec::new(), line: a.line };
            let ty = self.resolve_or_err(&ts, file, scope)?;
            let to = self.type_ref(&ty).expect("an annotation type");
            let mut args = Vec::new();
            for (name, range) in &a.args {
                let value = self.literal(*range, file, scope, from, a.line);
                args.push(NamedArgument { name: name.clone(), value });
            }
            self.edge("annotationUse", from, to, file, a.line).arguments = Some(args);
        }
        Ok(())
    }

    fn all_edges(&mut self) -> Result<(), String> {
        for (f, file) in self.files.iter().enumerate() {
            let from = self.b.r(Key::module(file.package.clone()));
            for imp in &file.imports {
                let to = match self.by_fqn.get(&imp.fqn) {
                    Some(&t) => self.b.r(Key::module(self.types[t].package.clone())),
                    None => self.stub_package(imp.fqn.rsplit_once('.').map_or("", |(p, _)| p)),
                };
                if to != from {
                    self.edge("import", from, to, f, imp.line);
                }
            }
        }
        for t in 0..self.types.len() {
            let (decl, file, tr) = (self.types[t].decl, self.types[t].file, self.types[t].r);
            let n_ext = decl.extends.len();
            for (k, ts) in decl.extends.iter().chain(&decl.implements).enumerate() {
                let kind = if k < n_ext { "inheritance" } else { "interfaceImplementation" };
                let ty = self.types[t].supers[k].clone();
                let to = self.type_ref(&ty).expect("a supertype");
                self.edge(kind, tr, to, file, ts.line);
            }
            self.annotation_uses(tr, &decl.annotations, file, t)?;
            for (k, fd) in decl.fields.iter().enumerate() {
                let fr = self.types[t].fields[k].2;
                if let Some(ts) = &fd.ty {
                    self.syntax_refs(fr, ts, file, t)?;
                    if let Some(range) = fd.init {
                        Walk::new(self, file, t, fr, false, range).expr_to_end()?;
                    }
                }
                self.annotation_uses(fr, &fd.annotations, file, t)?;
            }
            for (k, md) in decl.methods.iter().enumerate() {
                let mr = self.types[t].methods[k].r;
                if let Some(ts) = &md.ret {
                    self.syntax_refs(mr, ts, file, t)?;
                }
                let mut vars = Vec::new();
                for (j, p) in md.params.iter().enumerate() {
                    let pr = self.b.r(Key::with_d(
                        self.types[t].package.clone(),
                        self.b.key(mr).symbol.clone(),
                        format!("param:{}", p.name),
                    ));
                    self.syntax_refs(pr, &p.ty, file, t)?;
                    vars.push((p.name.clone(), self.types[t].methods[k].params[j].clone()));
                }
                for ts in &md.throws {
                    self.syntax_refs(mr, ts, file, t)?;
                }
                self.annotation_uses(mr, &md.annotations, file, t)?;
                if let Some(range) = md.body {
                    let mut w = Walk::new(self, file, t, mr, true, range);
                    w.vars = vars;
                    w.statements()?;
                }
            }
        }
        Ok(())
    }

    /// The type and every corpus supertype, breadth first.
    fn hierarchy(&self, t: usize) -> Vec<usize> {
        let mut out = vec![t];
        let mut k = 0;
        while k < out.len() {
            for s in &self.types[out[k]].supers {
                if let Ty::Corpus(s) = s {
                    if !out.contains(s) {
                        out.push(*s);
                    }
                }
            }
            k += 1;
        }
        out
    }

    /// The nearest JDK supertype in `t`'s hierarchy.
    fn external_super(&self, t: usize) -> Option<String> {
        self.hierarchy(t).iter().flat_map(|&h| &self.types[h].supers).find_map(|s| match s {
            Ty::Ext(f) => Some(f.clone()),
            _ => None,
        })
    }

    fn field(&self, t: usize, name: &str) -> Option<(Ty, Ref)> {
        self.hierarchy(t)
            .into_iter()
            .find_map(|h| self.types[h].fields.iter().find(|(n, _, _)| n == name).map(|(_, ty, r)| (ty.clone(), *r)))
    }

    /// A method of `t` (or a corpus supertype) by name and arguments;
    /// `Err` when the overload is ambiguous.
    fn method(&self, t: usize, name: Option<&str>, args: &[Ty]) -> Result<Option<(Ty, Ref)>, String> {
        let levels = if name.is_none() { vec![t] } else { self.hierarchy(t) };
        for h in levels {
            let fits: Vec<&MethodInfo> = self.types[h]
                .methods
                .iter()
                .filter(|m| m.name.as_deref() == name && m.params.len() == args.len())
                .collect();
            let exact: Vec<&&MethodInfo> =
                fits.iter().filter(|m| m.params.iter().zip(args).all(|(p, a)| p == a || !a.is_known())).collect();
            match (fits.len(), exact.len()) {
                (0, _) => continue,
                (1, _) => return Ok(Some((fits[0].ret.clone(), fits[0].r))),
                (_, 1) => return Ok(Some((exact[0].ret.clone(), exact[0].r))),
                _ => return Err(format!("ambiguous overload of {name:?} in {}", self.types[h].fqn)),
            }
        }
        Ok(None)
    }
}

impl Ty {
    fn is_known(&self) -> bool {
        matches!(self, Ty::Corpus(_) | Ty::Ext(_) | Ty::Prim(_))
    }

    /// Whether this is a type name, and the type.
    fn unclass(&self) -> (bool, &Ty) {
        match self {
            Ty::Class(inner) => (true, inner),
            other => (false, other),
        }
    }

    fn is_string(&self) -> bool {
        *self == Ty::Ext("java.lang.String".to_owned())
    }
}

/// A field access waiting to learn whether it is assigned: `(field, line)`.
type Pending = Option<(Ref, u32)>;

const ASSIGN: &[&str] = &["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="];
const BINARY: &[&str] = &["+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "&", "|", "^"];

/// Walks one body (or a field initializer) and records what it does.
struct Walk<'g, 'a> {
    g: &'g mut Gen<'a>,
    /// The cursor over the body's tokens (the slice ends with the body).
    p: Parser<'a>,
    file: usize,
    ty: usize,
    from: Ref,
    /// False in a field initializer: a field is not an invocable, so only
    /// the types it creates or names are recorded (as references).
    invocable: bool,
    vars: Vec<(String, Ty)>,
}

impl<'g, 'a> Walk<'g, 'a> {
    fn new(g: &'g mut Gen<'a>, file: usize, ty: usize, from: Ref, invocable: bool, range: (usize, usize)) -> Self {
        static NO_DOCS: std::sync::OnceLock<HashMap<usize, String>> = std::sync::OnceLock::new();
        let f: &'a JavaFile = &g.files[file];
        let p = Parser {
            t: &f.lexed.tokens[..range.1],
            docs: NO_DOCS.get_or_init(HashMap::new),
            i: range.0,
            path: &f.path,
        };
        Walk { g, p, file, ty, from, invocable, vars: Vec::new() }
    }

    fn text(&self, k: usize) -> &'a str {
        self.p.text(k)
    }

    fn is(&self, s: &str) -> bool {
        self.p.is(s)
    }

    fn eat(&mut self, s: &str) -> bool {
        self.p.eat(s)
    }

    fn line(&self) -> u32 {
        self.p.line()
    }

    fn err(&self, msg: &str) -> String {
        self.p.err(msg)
    }

    fn expect(&mut self, s: &str) -> Result<(), String> {
        self.p.expect(s)
    }

    fn at_end(&self) -> bool {
        self.p.i >= self.p.t.len()
    }

    fn edge(&mut self, kind: &'static str, to: Ref, line: u32) -> &mut Extra {
        let (from, file) = (self.from, self.file);
        self.g.edge(kind, from, to, file, line)
    }

    fn reference(&mut self, ty: &Ty, line: u32) {
        if let Some(to) = self.g.type_ref(ty) {
            self.edge("reference", to, line);
        }
    }

    fn access(&mut self, p: Pending, read: bool, write: bool) {
        if let (Some((to, line)), true) = (p, self.invocable) {
            let x = self.edge("access", to, line);
            x.read |= read;
            x.write |= write;
        }
    }

    fn invoke(&mut self, to: Ref, line: u32) -> Result<(), String> {
        if !self.invocable {
            return Err(self.err("calls in field initializers are not in the demo's Java subset"));
        }
        self.edge("invocation", to, line);
        Ok(())
    }

    fn resolve(&self, name: &str) -> Option<Ty> {
        self.g.resolve(name, self.file, Some(self.ty))
    }

    fn var(&self, name: &str) -> Option<Ty> {
        self.vars.iter().rev().find(|(n, _)| n == name).map(|(_, t)| t.clone())
    }

    /// A field visible by simple name: the type's own (and inherited), then
    /// those of the enclosing types.
    fn field_in_scope(&self, name: &str) -> Option<(Ty, Ref)> {
        let mut s = Some(self.ty);
        while let Some(t) = s {
            if let Some(f) = self.g.field(t, name) {
                return Some(f);
            }
            s = self.g.types[t].outer;
        }
        None
    }

    // ----- statements ------------------------------------------------------

    fn statements(&mut self) -> Result<(), String> {
        while !self.at_end() {
            self.stmt()?;
        }
        Ok(())
    }

    fn block(&mut self) -> Result<(), String> {
        self.expect("{")?;
        let depth = self.vars.len();
        while !self.is("}") {
            if self.at_end() {
                return Err(self.err("unterminated block"));
            }
            self.stmt()?;
        }
        self.vars.truncate(depth);
        self.p.i += 1;
        Ok(())
    }

    fn paren_expr(&mut self) -> Result<Ty, String> {
        self.expect("(")?;
        let t = self.expr()?;
        self.expect(")")?;
        Ok(t)
    }

    fn stmt(&mut self) -> Result<(), String> {
        match self.text(0) {
            "{" => self.block(),
            ";" => {
                self.p.i += 1;
                Ok(())
            }
            "if" => {
                self.p.i += 1;
                self.paren_expr()?;
                self.stmt()?;
                if self.eat("else") {
                    self.stmt()?;
                }
                Ok(())
            }
            "while" => {
                self.p.i += 1;
                self.paren_expr()?;
                self.stmt()
            }
            "for" => self.for_stmt(),
            "return" => {
                self.p.i += 1;
                if !self.is(";") {
                    self.expr()?;
                }
                self.expect(";")
            }
            "throw" => {
                let line = self.line();
                self.p.i += 1;
                let ty = self.expr()?;
                if let Some(to) = self.g.type_ref(&ty) {
                    self.edge("throws", to, line);
                }
                self.expect(";")
            }
            "try" => {
                self.p.i += 1;
                self.block()?;
                while self.eat("catch") {
                    self.expect("(")?;
                    let depth = self.vars.len();
                    self.local(false)?;
                    self.expect(")")?;
                    self.block()?;
                    self.vars.truncate(depth);
                }
                if self.eat("finally") {
                    self.block()?;
                }
                Ok(())
            }
            "switch" => {
                self.p.i += 1;
                let selector = self.paren_expr()?;
                self.switch_body(&selector)
            }
            "break" | "continue" => {
                self.p.i += 1;
                self.expect(";")
            }
            "super" | "this" if self.text(1) == "(" => {
                let (line, sup) = (self.line(), self.is("super"));
                self.p.i += 1;
                let args = self.args()?;
                let target = if sup { self.g.types[self.ty].superclass.clone() } else { Some(Ty::Corpus(self.ty)) };
                match target {
                    Some(Ty::Corpus(t)) => {
                        let (_, r) = self.g.method(t, None, &args)?.ok_or_else(|| self.err("no such constructor"))?;
                        self.invoke(r, line)?;
                    }
                    Some(Ty::Ext(f)) => {
                        let r = self.g.stub(&f);
                        self.invoke(r, line)?;
                    }
                    _ => return Err(self.err("no superclass")),
                }
                self.expect(";")
            }
            _ if self.local_ahead() => {
                self.local(true)?;
                self.expect(";")
            }
            _ => {
                self.expr()?;
                self.expect(";")
            }
        }
    }

    fn for_stmt(&mut self) -> Result<(), String> {
        self.p.i += 1;
        self.expect("(")?;
        let depth = self.vars.len();
        if self.local_ahead() && self.foreach_ahead() {
            self.local(false)?;
            self.expect(":")?;
            self.expr()?;
        } else {
            if self.local_ahead() {
                self.local(true)?;
            } else if !self.is(";") {
                self.expr()?;
            }
            self.expect(";")?;
            if !self.is(";") {
                self.expr()?;
            }
            self.expect(";")?;
            while !self.is(")") {
                self.expr()?;
                self.eat(",");
            }
        }
        self.expect(")")?;
        self.stmt()?;
        self.vars.truncate(depth);
        Ok(())
    }

    fn foreach_ahead(&self) -> bool {
        let mut p = self.p.clone();
        p.eat("final");
        p.type_syntax().is_ok() && p.ident().is_ok() && p.is(":")
    }

    /// Whether a local variable declaration starts here: `[final] Type name`
    /// followed by `=`, `;`, `:` or `)`, where `Type` names a type.
    fn local_ahead(&self) -> bool {
        let mut p = self.p.clone();
        p.eat("final");
        let Ok(ts) = p.type_syntax() else { return false };
        let first = ts.name.split('.').next().unwrap_or("");
        p.kind(0) == Some(Tk::Ident)
            && matches!(p.text(1), "=" | ";" | ":" | ")")
            && self.var(first).is_none()
            && self.resolve(&ts.name).is_some()
    }

    /// A local variable (also a catch parameter or a for-each variable): the
    /// entity, its declared type and references, and its initializer.
    fn local(&mut self, with_init: bool) -> Result<(), String> {
        self.eat("final");
        let mut p = self.p.clone();
        let ts = p.type_syntax()?;
        let line = p.line();
        let name = p.ident()?;
        self.p.i = p.i;
        let ty = self.g.resolve_or_err(&ts, self.file, self.ty)?;
        let declared = self.g.type_ref(&ty);
        let mut e = self.g.b.java_local(self.from, &name, line);
        e.at(line, line);
        if let Some(r) = declared {
            e.declared_type(r);
        }
        let lr = e.id();
        self.g.syntax_refs(lr, &ts, self.file, self.ty)?;
        self.vars.push((name, ty));
        if with_init && self.is("=") {
            self.p.i += 1;
            self.expr()?;
        }
        Ok(())
    }

    fn switch_body(&mut self, selector: &Ty) -> Result<(), String> {
        self.expect("{")?;
        while !self.is("}") {
            if self.eat("case") {
                let line = self.line();
                let constant = match selector {
                    Ty::Corpus(t) if self.g.types[*t].decl.kind == "enum" => self.g.field(*t, self.text(0)),
                    _ => None,
                };
                match constant {
                    Some((_, r)) if matches!(self.text(1), ":" | "->") => {
                        self.p.i += 1;
                        self.access(Some((r, line)), true, false);
                    }
                    _ => {
                        self.expr()?;
                    }
                }
            } else if self.eat("default") {
            } else {
                return Err(self.err("expected case or default"));
            }
            if self.eat("->") {
                if self.is("{") || self.is("throw") {
                    self.stmt()?;
                } else {
                    self.expr()?;
                    self.expect(";")?;
                }
            } else {
                self.expect(":")?;
                while !matches!(self.text(0), "case" | "default" | "}") {
                    self.stmt()?;
                }
            }
        }
        self.p.i += 1;
        Ok(())
    }

    // ----- expressions -------------------------------------------------------

    /// A field initializer: one expression filling the whole range.
    fn expr_to_end(&mut self) -> Result<(), String> {
        self.expr()?;
        if !self.at_end() {
            return Err(self.err("unexpected tokens after the initializer"));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Ty, String> {
        let (mut ty, mut pending) = self.unary()?;
        loop {
            let op = self.text(0);
            if ASSIGN.contains(&op) {
                // A field written (and read too when compound); a local is no access.
                self.access(pending.take(), op != "=", true);
                self.p.i += 1;
                self.expr()?;
                return Ok(ty);
            }
            self.access(pending.take(), true, false);
            if op == "instanceof" {
                let line = self.line();
                self.p.i += 1;
                let mut p = self.p.clone();
                let ts = p.type_syntax()?;
                self.p.i = p.i;
                let t = self.g.resolve_or_err(&ts, self.file, self.ty)?;
                self.reference(&t, line);
                ty = Ty::Prim("boolean".to_owned());
            } else if BINARY.contains(&op) {
                self.p.i += 1;
                let (rhs, p) = self.unary()?;
                self.access(p, true, false);
                ty = match op {
                    "+" if ty.is_string() || rhs.is_string() => Ty::Ext("java.lang.String".to_owned()),
                    "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" => Ty::Prim("boolean".to_owned()),
                    _ => Ty::Prim("long".to_owned()),
                };
            } else if op == "?" {
                self.p.i += 1;
                ty = self.expr()?;
                self.expect(":")?;
                self.expr()?;
                return Ok(ty);
            } else {
                return Ok(ty);
            }
        }
    }

    fn unary(&mut self) -> Result<(Ty, Pending), String> {
        match self.text(0) {
            "!" | "-" | "+" | "~" => {
                self.p.i += 1;
                let (t, p) = self.unary()?;
                self.access(p, true, false);
                Ok((t, None))
            }
            "++" | "--" => {
                self.p.i += 1;
                let (t, p) = self.unary()?;
                self.access(p, true, true);
                Ok((t, None))
            }
            "(" if self.cast_ahead() => {
                let line = self.line();
                self.p.i += 1;
                let mut p = self.p.clone();
                let ts = p.type_syntax()?;
                self.p.i = p.i;
                self.expect(")")?;
                let t = self.g.resolve_or_err(&ts, self.file, self.ty)?;
                self.reference(&t, line);
                let (_, p) = self.unary()?;
                self.access(p, true, false);
                Ok((t, None))
            }
            _ => self.postfix(),
        }
    }

    fn cast_ahead(&self) -> bool {
        let mut p = self.p.clone();
        p.i += 1;
        let Ok(ts) = p.type_syntax() else { return false };
        let first = ts.name.split('.').next().unwrap_or("");
        p.is(")")
            && self.var(first).is_none()
            && self.field_in_scope(first).is_none()
            && self.resolve(&ts.name).is_some()
            && (matches!(p.kind(1), Some(Tk::Ident | Tk::Num | Tk::Str | Tk::Char)) || p.text(1) == "(")
    }

    fn args(&mut self) -> Result<Vec<Ty>, String> {
        self.expect("(")?;
        let mut out = Vec::new();
        while !self.is(")") {
            out.push(self.expr()?);
            if !self.is(")") {
                self.expect(",")?;
            }
        }
        self.p.i += 1;
        Ok(out)
    }

    fn postfix(&mut self) -> Result<(Ty, Pending), String> {
        let (mut ty, mut pending) = self.primary()?;
        loop {
            if self.is(".") {
                self.access(pending.take(), true, false);
                self.p.i += 1;
                let line = self.line();
                let name = self.text(0);
                self.p.i += 1;
                if name == "class" {
                    let Ty::Class(inner) = &ty else { return Err(self.err(".class on a value")) };
                    let inner = (**inner).clone();
                    self.reference(&inner, line);
                    ty = Ty::Ext("java.lang.Class".to_owned());
                } else if self.is("(") {
                    let args = self.args()?;
                    ty = self.call(&ty, name, &args, line)?;
                } else {
                    (ty, pending) = self.member(&ty, name, line)?;
                }
            } else if self.is("++") || self.is("--") {
                self.p.i += 1;
                self.access(pending.take(), true, true);
            } else {
                return Ok((ty, pending));
            }
        }
    }

    fn primary(&mut self) -> Result<(Ty, Pending), String> {
        let toks: &'a [Token] = self.p.t;
        let Some(t) = toks.get(self.p.i) else {
            return Err(self.err("expected an expression"));
        };
        let line = t.line;
        match (t.kind, t.text.as_str()) {
            (Tk::Str, _) => {
                self.p.i += 1;
                Ok((Ty::Ext("java.lang.String".to_owned()), None))
            }
            (Tk::Num, _) | (Tk::Char, _) => {
                self.p.i += 1;
                Ok((Ty::Prim("long".to_owned()), None))
            }
            (Tk::Ident, "true" | "false") => {
                self.p.i += 1;
                Ok((Ty::Prim("boolean".to_owned()), None))
            }
            (Tk::Ident, "null") => {
                self.p.i += 1;
                Ok((Ty::Null, None))
            }
            (Tk::Ident, "this") => {
                self.p.i += 1;
                Ok((Ty::Corpus(self.ty), None))
            }
            (Tk::Ident, "new") => {
                self.p.i += 1;
                let mut p = self.p.clone();
                let ts = p.type_syntax()?;
                self.p.i = p.i;
                let ty = self.g.resolve_or_err(&ts, self.file, self.ty)?;
                let args = self.args()?;
                if self.is("{") {
                    return Err(self.err("anonymous classes are not in the demo's Java subset"));
                }
                if !self.invocable {
                    self.reference(&ty, line);
                    return Ok((ty, None));
                }
                let to = match &ty {
                    Ty::Corpus(t) => self.g.method(*t, None, &args)?.ok_or_else(|| self.err("no such constructor"))?.1,
                    Ty::Ext(f) => self.g.stub(f),
                    _ => return Err(self.err("new of a primitive")),
                };
                self.invoke(to, line)?;
                Ok((ty, None))
            }
            (Tk::Punct, "(") => {
                self.p.i += 1;
                let ty = self.expr()?;
                self.expect(")")?;
                Ok((ty, None))
            }
            (Tk::Ident, name) => {
                self.p.i += 1;
                if self.is("(") {
                    let args = self.args()?;
                    return Ok((self.call_unqualified(name, &args, line)?, None));
                }
                if let Some(ty) = self.var(name) {
                    return Ok((ty, None));
                }
                if let Some((ty, r)) = self.field_in_scope(name) {
                    return Ok((ty, Some((r, line))));
                }
                match self.resolve(name) {
                    Some(ty) => Ok((Ty::Class(Box::new(ty)), None)),
                    None => Err(format!("{}:{line}: cannot resolve {name}", self.p.path)),
                }
            }
            _ => Err(self.err("expected an expression")),
        }
    }

    /// `recv.name` (not a call): a field, a nested type, or a JDK type's field.
    fn member(&mut self, recv: &Ty, name: &str, line: u32) -> Result<(Ty, Pending), String> {
        let (is_class, base) = recv.unclass();
        match base {
            Ty::Corpus(t) => {
                if let Some((ty, r)) = self.g.field(*t, name) {
                    return Ok((ty, Some((r, line))));
                }
                if is_class {
                    if let Some(&n) = self.g.types[*t].nested.iter().find(|&&n| self.g.types[n].decl.name == name) {
                        return Ok((Ty::Class(Box::new(Ty::Corpus(n))), None));
                    }
                }
                Err(format!("{}:{line}: no field {name} in {}", self.p.path, self.g.types[*t].fqn))
            }
            Ty::Ext(f) => {
                let r = self.g.stub(f);
                Ok((Ty::Unknown, Some((r, line))))
            }
            _ => Err(format!("{}:{line}: cannot resolve .{name} on {recv:?}", self.p.path)),
        }
    }

    fn call(&mut self, recv: &Ty, name: &str, args: &[Ty], line: u32) -> Result<Ty, String> {
        match recv.unclass().1 {
            Ty::Corpus(t) => {
                if let Some((ret, r)) = self.g.method(*t, Some(name), args)? {
                    self.invoke(r, line)?;
                    return Ok(ret);
                }
                let owner = JDK_INHERITED
                    .iter()
                    .find(|(m, _)| *m == name)
                    .map(|(_, o)| (*o).to_owned())
                    .filter(|_| self.g.external_super(*t).is_some())
                    .or_else(|| self.g.external_super(*t))
                    .ok_or_else(|| format!("{}:{line}: no method {name} in {}", self.p.path, self.g.types[*t].fqn))?;
                let r = self.g.stub(&owner);
                self.invoke(r, line)?;
                Ok(Ty::Unknown)
            }
            Ty::Ext(f) => {
                let r = self.g.stub(f);
                self.invoke(r, line)?;
                Ok(Ty::Unknown)
            }
            _ => Err(format!("{}:{line}: cannot resolve .{name}() on {recv:?}", self.p.path)),
        }
    }

    /// `name(args)`: a method of this type, its supertypes or its enclosing types.
    fn call_unqualified(&mut self, name: &str, args: &[Ty], line: u32) -> Result<Ty, String> {
        let mut s = Some(self.ty);
        while let Some(t) = s {
            if let Some((ret, r)) = self.g.method(t, Some(name), args)? {
                self.invoke(r, line)?;
                return Ok(ret);
            }
            s = self.g.types[t].outer;
        }
        Err(format!("{}:{line}: cannot resolve {name}()", self.p.path))
    }
}
