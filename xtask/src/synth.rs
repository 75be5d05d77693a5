//! `cargo xtask synth`: writes a synthetic but realistic Java `model.jsonl`
//! with exactly the requested numbers of entities and edges, deterministic for
//! a seed. Built with `model::builder`, so it is canonical by construction.
//!
//! Shape (Apache Fineract is the reference scale: 4,213 files, 240,910
//! entities, 782,031 edges): a tree of corpus packages (sub-packages have the
//! nearest ancestor corpus package as parent, some skipping a level), one file
//! per top-level type, nested types, methods with parameters / locals /
//! lambdas / anonymous classes, written and implicit constructors, fields (some
//! `static final` constants with a value), enums, records, annotations; stub
//! packages and stub types (a few parentless, invented inside corpus
//! packages); edges in Java proportions (reference 40 %, invocation 26 %,
//! access 18 %, import 6 %, annotationUse 5 %, inheritance 2 %,
//! interfaceImplementation 2 %, throws 1 %; a few derived imports). Where a
//! kind cannot be filled sensibly (e.g. more inheritance edges than types could
//! declare) the rest become references.
//!
//! Structure is layered, as in real code: packages are ranked, types ranked
//! inside their package (exceptions and annotations lowest, classes highest,
//! nested types just below their outer type), and every dependency —
//! invocation, access, reference, inheritance, interface implementation,
//! annotation use, throws, import — goes down that order or to a stub. The
//! cycles are deliberate and small, each over a run of the order no other
//! cycle touches: rings of 2–8 neighbouring operations of one type (mutual
//! recursion), nested types referring back to their outer type, tangles of
//! 2–20 adjacent types of one package, 2–4 package tangles of 2–4 packages
//! and, from 200 packages on, one of 20–50.

use model::builder::{Key, ModelBuilder, Ref};
use model::{Literal, NamedArgument};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Number of entities to write (exact).
    #[arg(long, default_value_t = 10_000)]
    entities: usize,
    /// Number of edges to write (exact).
    #[arg(long, default_value_t = 32_000)]
    edges: usize,
    /// Seed of the generator; the output is a function of (entities, edges, seed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the model.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: Args) -> crate::Result {
    let started = Instant::now();
    let b = generate(args.entities, args.edges, args.seed)?;
    let file = std::fs::File::create(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let w = b.write_to(file).map_err(|e| format!("synth: {e}"))?;
    println!(
        "synth: {} files, {} entities, {} edges, {} bytes, {:.2} s -> {}",
        w.files,
        w.entities,
        w.edges,
        w.bytes,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// The smallest model the generator can shape.
const MIN_ENTITIES: usize = 40;

/// Builds the model (not yet written).
pub fn generate(entities: usize, edges: usize, seed: u64) -> crate::Result<ModelBuilder> {
    if entities < MIN_ENTITIES {
        return Err(format!("synth: --entities must be at least {MIN_ENTITIES}"));
    }
    let mut g = Gen::new(seed);
    g.stubs(entities);
    g.packages_and_types(entities);
    g.members();
    if g.b.entity_count() != entities {
        return Err(format!("synth: internal: {} entities instead of {entities}", g.b.entity_count()));
    }
    g.edges(edges);
    if g.b.edge_count() != edges {
        return Err(format!("synth: internal: {} edges instead of {edges}", g.b.edge_count()));
    }
    Ok(g.b)
}

// ----- randomness ----------------------------------------------------------

/// splitmix64: tiny, fast, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn f(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [0, n); n > 0.
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn chance(&mut self, p: f64) -> bool {
        self.f() < p
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    /// Skewed towards small indices (popular first): index ~ n·u³.
    fn skewed(&mut self, n: usize) -> usize {
        ((n as f64 * self.f().powi(3)) as usize).min(n - 1)
    }
    /// Geometric count with the given mean.
    fn geom(&mut self, mean: f64) -> usize {
        let p = 1.0 / (1.0 + mean);
        let mut n = 0;
        while !self.chance(p) && n < 64 {
            n += 1;
        }
        n
    }
    /// A log-normal weight with median 1.
    fn lognormal(&mut self, sigma: f64) -> f64 {
        let (u, v) = (self.f().max(1e-12), self.f());
        let z = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
        (sigma * z).exp()
    }
}

// ----- vocabulary ------------------------------------------------------------

/// Stub packages and their types, most used first. Kind hints: `@` annotation,
/// `!` exception, `^` interface, `=` enum; everything is written as a `class`
/// stub, as the extractor does.
const STUBS: &[(&str, &[&str])] = &[
    (
        "java.lang",
        &[
            "String",
            "Object",
            "@Override",
            "Long",
            "Integer",
            "Boolean",
            "!RuntimeException",
            "StringBuilder",
            "!IllegalArgumentException",
            "System",
            "Math",
            "^Runnable",
            "^Comparable",
            "!IllegalStateException",
            "@Deprecated",
            "@SuppressWarnings",
            "Double",
            "Enum",
            "Class",
            "!Exception",
            "^Iterable",
            "Thread",
            "^CharSequence",
            "^AutoCloseable",
            "@FunctionalInterface",
            "Character",
            "Number",
            "!NullPointerException",
            "!UnsupportedOperationException",
            "Void",
        ],
    ),
    (
        "java.util",
        &[
            "^List",
            "^Map",
            "ArrayList",
            "HashMap",
            "^Set",
            "Optional",
            "^Collection",
            "Collections",
            "Arrays",
            "Objects",
            "HashSet",
            "^Iterator",
            "LinkedHashMap",
            "UUID",
            "Locale",
            "Date",
            "^Comparator",
            "TreeMap",
            "LinkedList",
            "StringJoiner",
        ],
    ),
    ("java.math", &["BigDecimal", "=RoundingMode", "BigInteger", "MathContext"]),
    (
        "java.time",
        &[
            "LocalDate",
            "LocalDateTime",
            "ZonedDateTime",
            "Instant",
            "Duration",
            "ZoneId",
            "OffsetDateTime",
            "=DayOfWeek",
        ],
    ),
    (
        "jakarta.persistence",
        &[
            "@Entity",
            "@Table",
            "@Column",
            "@ManyToOne",
            "@JoinColumn",
            "@OneToMany",
            "@Id",
            "@Transient",
            "^EntityManager",
            "=FetchType",
            "=CascadeType",
            "@Embeddable",
            "@Enumerated",
            "@OneToOne",
        ],
    ),
    ("org.springframework.stereotype", &["@Service", "@Component", "@Repository"]),
    ("org.springframework.transaction.annotation", &["@Transactional", "=Propagation"]),
    ("org.springframework.beans.factory.annotation", &["@Autowired", "@Qualifier", "@Value"]),
    ("java.util.function", &["^Function", "^Supplier", "^Consumer", "^Predicate", "^BiFunction", "^UnaryOperator"]),
    ("java.util.stream", &["^Stream", "Collectors", "^IntStream"]),
    ("org.springframework.jdbc.core", &["JdbcTemplate", "^RowMapper", "^ResultSetExtractor"]),
    ("java.sql", &["^ResultSet", "!SQLException", "Types", "Timestamp"]),
    (
        "jakarta.ws.rs",
        &[
            "@Path",
            "@GET",
            "@POST",
            "@PUT",
            "@DELETE",
            "@Produces",
            "@Consumes",
            "@PathParam",
            "@QueryParam",
            "@Context",
            "@DefaultValue",
        ],
    ),
    ("jakarta.ws.rs.core", &["MediaType", "^UriInfo", "Response"]),
    (
        "org.springframework.data.jpa.repository",
        &["^JpaRepository", "^JpaSpecificationExecutor", "@Query", "@Modifying"],
    ),
    ("org.slf4j", &["^Logger", "LoggerFactory"]),
    ("com.google.gson", &["Gson", "JsonElement", "JsonObject", "JsonArray", "JsonParser", "GsonBuilder"]),
    (
        "lombok",
        &[
            "@Getter",
            "@Setter",
            "@RequiredArgsConstructor",
            "@Builder",
            "@AllArgsConstructor",
            "@NoArgsConstructor",
            "@Data",
            "@Slf4j",
        ],
    ),
    ("io.swagger.v3.oas.annotations", &["@Operation", "@Parameter"]),
    ("io.swagger.v3.oas.annotations.tags", &["@Tag"]),
    ("java.util.concurrent", &["ConcurrentHashMap", "^ExecutorService", "=TimeUnit", "CompletableFuture", "^Callable"]),
    ("org.apache.commons.lang3", &["StringUtils", "ObjectUtils", "BooleanUtils"]),
    ("com.fasterxml.jackson.databind", &["ObjectMapper", "JsonNode"]),
    ("java.io", &["^Serializable", "!IOException", "InputStream", "OutputStream", "File", "PrintStream"]),
    ("org.springframework.context.annotation", &["@Bean", "@Configuration", "@Lazy"]),
    ("java.time.format", &["DateTimeFormatter"]),
    ("java.nio.charset", &["StandardCharsets"]),
    ("org.springframework.batch.core", &["^Job", "^Step", "StepExecution", "JobParameters"]),
    ("org.springframework.security.core", &["^Authentication", "^GrantedAuthority"]),
    ("org.springframework.http", &["ResponseEntity", "=HttpStatus"]),
];

const AREAS: &[&str] = &[
    "portfolio",
    "accounting",
    "infrastructure",
    "organisation",
    "useradministration",
    "interoperation",
    "template",
    "notification",
    "cob",
    "batch",
    "mix",
    "adhocquery",
    "spm",
    "commands",
    "integrationtests",
];
const SEGMENTS: &[&str] = &[
    "loanaccount",
    "savings",
    "client",
    "group",
    "charge",
    "collateral",
    "account",
    "journalentry",
    "glaccount",
    "closure",
    "provisioning",
    "rule",
    "office",
    "staff",
    "teller",
    "holiday",
    "workingdays",
    "core",
    "security",
    "jobs",
    "dataqueries",
    "codes",
    "documentmanagement",
    "hooks",
    "reportmailingjob",
    "creditbureau",
    "businessdate",
    "interestratechart",
    "fixeddeposit",
    "recurringdeposit",
    "shareaccounts",
    "shareproducts",
    "loanproduct",
    "rescheduleloan",
    "guarantor",
    "floatingrates",
    "fund",
    "meeting",
    "calendar",
    "address",
    "search",
    "survey",
    "note",
    "tax",
    "paymenttype",
    "paymentdetail",
    "delinquency",
    "repaymentwithpostdatedchecks",
    "externalevent",
    "campaigns",
    "sms",
    "email",
    "entityaccess",
    "cache",
];
const LAYERS: &[&str] = &[
    "api",
    "service",
    "domain",
    "data",
    "exception",
    "handler",
    "serialization",
    "mapper",
    "starter",
    "jobs",
    "command",
    "filter",
    "config",
    "util",
    "validator",
    "calc",
    "event",
];
const NOUNS: &[&str] = &[
    "Loan",
    "Account",
    "Savings",
    "Client",
    "Group",
    "Charge",
    "Transaction",
    "Repayment",
    "Schedule",
    "Product",
    "Office",
    "Staff",
    "Fund",
    "Collateral",
    "Interest",
    "Rate",
    "Deposit",
    "Share",
    "Journal",
    "Entry",
    "Report",
    "Template",
    "Command",
    "Installment",
    "Disbursement",
    "Guarantor",
    "Calendar",
    "Meeting",
    "Holiday",
    "Tax",
    "Payment",
    "Detail",
    "Note",
    "Document",
    "Code",
    "Value",
    "Teller",
    "Cashier",
    "Provision",
    "Delinquency",
    "Bucket",
    "Range",
    "Penalty",
    "Fee",
    "Waiver",
    "Allocation",
    "Balance",
    "Period",
    "Term",
    "Status",
    "Event",
    "Business",
    "Date",
    "Chart",
    "Slab",
    "Officer",
    "Hierarchy",
    "Closure",
    "Accrual",
    "Reversal",
    "Adjustment",
];
const SUFFIXES: &[&str] = &[
    "Service",
    "ServiceImpl",
    "ReadPlatformService",
    "WritePlatformService",
    "ReadPlatformServiceImpl",
    "WritePlatformServiceJpaRepositoryImpl",
    "Repository",
    "RepositoryWrapper",
    "Data",
    "ApiResource",
    "CommandHandler",
    "Validator",
    "DataValidator",
    "Assembler",
    "Mapper",
    "Helper",
    "Util",
    "Constants",
    "Enumerations",
    "JsonSerializer",
    "Processor",
    "Calculator",
    "Listener",
    "Configuration",
    "Factory",
    "Builder",
    "Provider",
    "Request",
    "Response",
    "Summary",
    "",
    "",
    "",
];
const VERBS: &[&str] = &[
    "create",
    "update",
    "delete",
    "retrieve",
    "find",
    "validate",
    "calculate",
    "apply",
    "handle",
    "process",
    "get",
    "set",
    "is",
    "build",
    "map",
    "assemble",
    "to",
    "from",
    "compute",
    "post",
    "reverse",
    "approve",
    "reject",
    "disburse",
    "close",
    "open",
    "activate",
    "assign",
    "transfer",
    "register",
    "load",
    "check",
];
const VARS: &[&str] = &[
    "loanId",
    "clientId",
    "command",
    "amount",
    "date",
    "transaction",
    "account",
    "result",
    "builder",
    "entity",
    "data",
    "officeId",
    "charge",
    "sql",
    "params",
    "locale",
    "dateFormat",
    "jsonCommand",
    "changes",
    "principal",
    "interest",
    "schedule",
    "installment",
    "status",
    "productId",
    "context",
    "user",
    "currency",
    "value",
    "index",
    "errors",
    "element",
    "mapper",
    "count",
    "total",
    "page",
    "limit",
    "id",
    "name",
    "type",
];
const PRIMITIVES: &[&str] = &["long", "int", "boolean", "double", "int[]", "byte[]"];
const DOCS: &[&str] = &[
    "Reads the current state from the repository and maps it to data.",
    "Validates the command and reports every parameter error at once.",
    "Applies the change and records an audit entry.",
    "Immutable value, safe to share across threads.",
    "Used by the scheduler; must stay idempotent.",
    "Thrown when the requested resource does not exist.",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum StubHint {
    Class,
    Annotation,
    Exception,
    Interface,
    Enum,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Class => "class",
            Kind::Interface => "interface",
            Kind::Enum => "enum",
            Kind::Record => "record",
            Kind::Annotation => "annotation",
        }
    }
}

/// A type anything can refer to.
#[derive(Clone)]
struct TypeRef {
    r: Ref,
    fqn: String,
}

/// A corpus type with what edges need.
struct TypeInfo {
    r: Ref,
    kind: Kind,
    /// Index into `Gen::pkgs`.
    pkg: usize,
    /// Index into `Gen::files`.
    file: usize,
    start: u32,
    end: u32,
    fqn: String,
    /// Top-level: the budget (entities) it must use; nested: 0 (already spent).
    budget: usize,
    name: String,
    exception: bool,
    fields: Vec<Ref>,
    /// Layering: (package rank, place in the package, nesting order).
    /// Dependencies go from a higher key to a lower one (or to stubs); a
    /// nested type sorts just below its outer type.
    key: (u32, u32, u32),
    /// The outer type of a nested type.
    outer: Option<usize>,
    /// The top-level type this one is (or is nested in).
    top: usize,
}

/// An invocable (method, constructor, lambda) with its span.
struct Site {
    r: Ref,
    file: usize,
    start: u32,
    end: u32,
    ty: usize,
    /// The site whose operation this one's calls count for: itself for a
    /// method or constructor, the enclosing method for a lambda or an
    /// anonymous class's members (they share its place in the call order).
    enc: usize,
}

struct Pkg {
    path: String,
    r: Ref,
    files: Vec<usize>,
    types: Vec<usize>,
}

struct Gen {
    b: ModelBuilder,
    rng: Rng,
    /// Stub types by role.
    stub_types: Vec<TypeRef>,
    stub_annotations: Vec<Ref>,
    stub_exceptions: Vec<Ref>,
    stub_interfaces: Vec<Ref>,
    stub_pkgs: Vec<Ref>,
    pkgs: Vec<Pkg>,
    files: Vec<String>,
    types: Vec<TypeInfo>,
    sites: Vec<Site>,
    /// Entities that name a type: (from, file, line, type) → natural references.
    typed: Vec<(Ref, usize, u32, Ref)>,
    /// Entities that may carry annotations: (entity, file, line, declaring type).
    annotatable: Vec<(Ref, usize, u32, usize)>,
    /// Anonymous-class creations: (creating method, anonymous class, file, line).
    anon_creations: Vec<(Ref, Ref, usize, u32)>,
    /// `extends` edges made so far (Java forbids cycles among them).
    extends: std::collections::HashMap<Ref, Vec<Ref>>,
    /// Per package: its layer (a permutation of `0..pkgs.len()`).
    pkg_rank: Vec<u32>,
    /// Top-level types sorted by key; `top_pos[t]` is a top-level type's
    /// place in it and `pkg_top[p]` the run of package `p`'s types.
    top_order: Vec<usize>,
    top_pos: Vec<usize>,
    pkg_top: Vec<(usize, usize)>,
    /// Counts down: the last key part of nested types.
    nesting: u32,
    /// All types sorted by key (set when the edges start): `order[pos[t]] = t`,
    /// `pkg_span[p]` the run of package `p`.
    order: Vec<usize>,
    pos: Vec<usize>,
    pkg_span: Vec<(usize, usize)>,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut b = ModelBuilder::new("java", "src/main/java");
        b.extractor(r#"{"name":"codegraph-synth","version":"0.1.0","noClasspath":true}"#);
        Gen {
            b,
            rng: Rng(seed ^ 0x5EED_C0DE_6A7A_0001),
            stub_types: Vec::new(),
            stub_annotations: Vec::new(),
            stub_exceptions: Vec::new(),
            stub_interfaces: Vec::new(),
            stub_pkgs: Vec::new(),
            pkgs: Vec::new(),
            files: Vec::new(),
            types: Vec::new(),
            sites: Vec::new(),
            typed: Vec::new(),
            annotatable: Vec::new(),
            anon_creations: Vec::new(),
            extends: std::collections::HashMap::new(),
            pkg_rank: Vec::new(),
            top_order: Vec::new(),
            top_pos: Vec::new(),
            pkg_top: Vec::new(),
            nesting: u32::MAX,
            order: Vec::new(),
            pos: Vec::new(),
            pkg_span: Vec::new(),
        }
    }

    /// Stub packages and types: about 1.3 % of the entities, most used first.
    fn stubs(&mut self, n: usize) {
        let want_types = (n as f64 * 0.012).round().max(4.0) as usize;
        // Round-robin over the catalog: the i-th type of every package, then i+1.
        let mut picked: Vec<(usize, String, StubHint)> = Vec::new();
        let mut i = 0;
        while picked.len() < want_types {
            let mut any = false;
            for (p, (_, types)) in STUBS.iter().enumerate() {
                if let Some(t) = types.get(i) {
                    any = true;
                    if picked.len() < want_types {
                        let (hint, name) = match t.as_bytes()[0] {
                            b'@' => (StubHint::Annotation, &t[1..]),
                            b'!' => (StubHint::Exception, &t[1..]),
                            b'^' => (StubHint::Interface, &t[1..]),
                            b'=' => (StubHint::Enum, &t[1..]),
                            _ => (StubHint::Class, &t[..]),
                        };
                        picked.push((p, name.to_owned(), hint));
                    }
                }
            }
            if !any {
                break;
            }
            i += 1;
        }
        // Beyond the catalog: vendor libraries with invented names.
        let mut vendor_pkgs: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        while picked.len() < want_types {
            if vendor_pkgs.is_empty() || self.rng.chance(0.08) {
                vendor_pkgs.push(format!("com.vendor{}.{}", vendor_pkgs.len(), self.rng.pick(SEGMENTS)));
            }
            let p = STUBS.len() + self.rng.below(vendor_pkgs.len());
            let name = format!(
                "{}{}",
                self.rng.pick(NOUNS),
                self.rng.pick(&["Client", "Support", "Factory", "Util", "Context", "Handler", "Spec", "Event"])
            );
            if seen.insert((p, name.clone())) {
                let hint = if self.rng.chance(0.1) {
                    StubHint::Annotation
                } else if self.rng.chance(0.1) {
                    StubHint::Interface
                } else {
                    StubHint::Class
                };
                picked.push((p, name, hint));
            }
        }
        let pkg_path = |p: usize| -> String {
            if p < STUBS.len() {
                STUBS[p].0.to_owned()
            } else {
                vendor_pkgs[p - STUBS.len()].clone()
            }
        };
        let mut declared_pkgs = HashSet::new();
        for (p, name, hint) in picked {
            let path = pkg_path(p);
            if declared_pkgs.insert(p) {
                let r = self.b.java_stub_package(&path).id();
                self.stub_pkgs.push(r);
            }
            let r = self.b.java_stub_type(&path, &name).id();
            self.stub_types.push(TypeRef { r, fqn: format!("{path}.{name}") });
            match hint {
                StubHint::Annotation => self.stub_annotations.push(r),
                StubHint::Exception => self.stub_exceptions.push(r),
                StubHint::Interface => self.stub_interfaces.push(r),
                StubHint::Class | StubHint::Enum => {}
            }
        }
    }

    /// Corpus packages, files and top-level types (declared later), with budgets.
    fn packages_and_types(&mut self, n: usize) {
        let parentless = ((n as f64 * 0.0004).round() as usize).max(1);
        let remaining = n - self.b.entity_count() - parentless;
        // About 56 entities per file, 9 files per package (Fineract: 4,213 files).
        let files = (remaining as f64 / 56.4).round().max(1.0) as usize;
        let pkgs = (files as f64 / 9.0).round().max(1.0) as usize;
        let corpus = remaining - pkgs;
        let files = files.min(corpus / 3).max(1);

        // The package tree below org.acme.fin (not a package of its own).
        let mut paths: Vec<String> = Vec::new();
        let mut parent_of: Vec<Option<usize>> = Vec::new();
        let mut seen = HashSet::new();
        let roots = (pkgs / 60).clamp(1, AREAS.len()).min(pkgs);
        for area in AREAS.iter().take(roots) {
            let p = format!("org.acme.fin.{area}");
            seen.insert(p.clone());
            paths.push(p);
            parent_of.push(None);
        }
        let mut attempts = 0;
        while paths.len() < pkgs {
            attempts += 1;
            let parent = self.rng.skewed(paths.len().min(64)).min(paths.len() - 1);
            let parent = if self.rng.chance(0.5) { self.rng.below(paths.len()) } else { parent };
            let depth = paths[parent].matches('.').count();
            let seg = if depth < 5 { *self.rng.pick(SEGMENTS) } else { *self.rng.pick(LAYERS) };
            let seg = if attempts > 20 * pkgs { format!("{seg}{attempts}") } else { seg.to_owned() };
            // Some sub-packages skip a level that holds no types: their parent is
            // then the nearest ANCESTOR corpus package.
            let path = if self.rng.chance(0.1) {
                format!("{}.{}.{seg}", paths[parent], self.rng.pick(LAYERS))
            } else {
                format!("{}.{seg}", paths[parent])
            };
            if seen.insert(path.clone()) {
                paths.push(path);
                parent_of.push(Some(parent));
            }
        }
        for (i, path) in paths.iter().enumerate() {
            let r = match parent_of[i] {
                None => self.b.java_package(path).id(),
                Some(p) => {
                    let pr = self.pkgs[p].r;
                    self.b.java_subpackage(path, pr).id()
                }
            };
            self.pkgs.push(Pkg { path: path.clone(), r, files: Vec::new(), types: Vec::new() });
        }
        // Package layers: a random order; imports and type dependencies go down it.
        let mut ranks: Vec<u32> = (0..self.pkgs.len() as u32).collect();
        shuffle(&mut self.rng, &mut ranks);
        self.pkg_rank = ranks;

        // Parentless stubs invented inside corpus packages.
        for k in 0..parentless {
            let p = self.rng.below(self.pkgs.len());
            let path = self.pkgs[p].path.clone();
            let name = format!("{}{}Gateway{k}", self.rng.pick(NOUNS), self.rng.pick(NOUNS));
            let r = self.b.java_parentless_stub_type(&path, &name).id();
            self.stub_types.push(TypeRef { r, fqn: format!("{path}.{name}") });
        }

        // Budgets per file: log-normal sizes summing exactly to the corpus budget.
        let weights: Vec<f64> = (0..files).map(|_| self.rng.lognormal(0.8)).collect();
        let total: f64 = weights.iter().sum();
        let spare = corpus - 3 * files;
        let mut budgets: Vec<usize> = weights.iter().map(|w| 3 + (spare as f64 * w / total) as usize).collect();
        let mut sum: usize = budgets.iter().sum();
        while sum < corpus {
            let i = self.rng.below(files);
            budgets[i] += 1;
            sum += 1;
        }

        // Top-level types: every package gets one, the rest skewed to big packages.
        let mut names_in_pkg: Vec<HashSet<String>> = vec![HashSet::new(); self.pkgs.len()];
        for (f, &budget) in budgets.iter().enumerate() {
            let pkg = if f < self.pkgs.len() { f } else { self.rng.skewed(self.pkgs.len()) };
            let (kind, exception) = match self.rng.below(100) {
                0..=4 => (Kind::Class, true),
                5..=74 => (Kind::Class, false),
                75..=88 => (Kind::Interface, false),
                89..=94 => (Kind::Enum, false),
                95..=97 => (Kind::Record, false),
                _ => (Kind::Annotation, false),
            };
            let name = loop {
                let base = format!("{}{}", self.rng.pick(NOUNS), self.rng.pick(NOUNS));
                let suffix = match kind {
                    _ if exception => "NotFoundException",
                    Kind::Interface => {
                        *self.rng.pick(&["Service", "Repository", "ReadPlatformService", "Handler", "Provider", ""])
                    }
                    Kind::Enum => *self.rng.pick(&["Type", "Status", "Enum", "Frequency", "Method"]),
                    Kind::Record => *self.rng.pick(&["Data", "Request", "Response", "Summary"]),
                    Kind::Annotation => *self.rng.pick(&["Audited", "Validated", "Command", "Secured"]),
                    Kind::Class => *self.rng.pick(SUFFIXES),
                };
                let name = format!("{base}{suffix}");
                if names_in_pkg[pkg].insert(name.clone()) {
                    break name;
                }
            };
            let path = format!("{}/{name}.java", self.pkgs[pkg].path.replace('.', "/"));
            let file = self.files.len();
            self.files.push(path);
            self.pkgs[pkg].files.push(file);
            let fqn = format!("{}.{name}", self.pkgs[pkg].path);
            let r = self.b.r(Key::new(self.pkgs[pkg].path.clone(), name.clone()));
            // Inside a package: exceptions and annotations at the bottom, then
            // enums and records, interfaces, and classes on top.
            let base = match kind {
                _ if exception => 0,
                Kind::Annotation => 0,
                Kind::Enum | Kind::Record => 1,
                Kind::Interface => 2,
                Kind::Class => 3,
            };
            let place = (base << 28) | (self.rng.next() >> 36) as u32;
            let top = self.types.len();
            self.pkgs[pkg].types.push(top);
            self.types.push(TypeInfo {
                r,
                kind,
                pkg,
                file,
                start: 0,
                end: 0,
                fqn,
                budget,
                name,
                exception,
                fields: Vec::new(),
                key: (self.pkg_rank[pkg], place, u32::MAX),
                outer: None,
                top,
            });
        }
        // Top-level types in layer order; each package's form a run.
        let mut order: Vec<usize> = (0..self.types.len()).collect();
        order.sort_by_key(|&t| (self.types[t].key, t));
        self.top_pos = vec![0; self.types.len()];
        self.pkg_top = vec![(0, 0); self.pkgs.len()];
        for (i, &t) in order.iter().enumerate() {
            self.top_pos[t] = i;
            // Unique, so nested types (keyed below their outer) never interleave.
            self.types[t].key.1 = i as u32;
            let p = self.types[t].pkg;
            if i == 0 || self.types[order[i - 1]].pkg != p {
                self.pkg_top[p].0 = i;
            }
            self.pkg_top[p].1 = i + 1;
        }
        self.top_order = order;
    }

    /// Declares every top-level type with its members, spending its budget exactly.
    fn members(&mut self) {
        let top = self.types.len();
        for t in 0..top {
            let budget = self.types[t].budget;
            let imports = self.rng.range(2, 14) as u32;
            let mut line = 3 + imports + 1;
            let owner = self.pkgs[self.types[t].pkg].r;
            self.declare_type(t, owner, budget, &mut line, 0);
        }
    }

    /// Declares type `t` (already in `self.types`) and fills it with exactly
    /// `budget` entities (itself included).
    fn declare_type(&mut self, t: usize, owner: Ref, budget: usize, line: &mut u32, depth: u32) {
        let (kind, name, file) = (self.types[t].kind, self.types[t].name.clone(), self.types[t].file);
        let path = self.files[file].clone();
        let annotations = self.rng.geom(0.6) as u32;
        let start = *line;
        *line += annotations + 1;
        let mut e = self.b.java_type(kind.name(), owner, &name);
        if self.rng.chance(0.4) {
            e.doc(DOCS[self.rng.below(DOCS.len())]);
        }
        let r = e.id();
        debug_assert_eq!(r, self.types[t].r);
        self.annotatable.push((r, file, start, t));
        let mut remaining = budget - 1;
        let mut used: HashSet<String> = HashSet::new();
        let mut pending: Option<Ref> = None;

        // Records: components (field + accessor) and the implicit canonical
        // constructor with anchorless parameters.
        if kind == Kind::Record && remaining >= 4 {
            let k = self.rng.range(1, 4).min((remaining - 1) / 3);
            let comps: Vec<(String, Option<TypeRef>, String)> = (0..k)
                .map(|i| {
                    let (fqn, ty) = self.param_type(t);
                    (format!("{}{i}", self.rng.pick(VARS)), ty, fqn)
                })
                .collect();
            for (cname, ty, _) in &comps {
                let mut f = self.b.java_field(r, cname);
                f.anchor(&path, start, start);
                if let Some(ty) = ty {
                    f.declared_type(ty.r);
                }
                let fr = f.id();
                self.types[t].fields.push(fr);
                let mut m = self.b.java_method(r, cname, &[]);
                m.anchor(&path, start, start).measure("cyclomatic", 1.0);
                if let Some(ty) = ty {
                    m.declared_type(ty.r);
                }
                let mr = m.id();
                self.sites.push(Site { r: mr, file, start, end: start, ty: t, enc: self.sites.len() });
                used.insert(format!("{cname}()"));
            }
            let fqns: Vec<&str> = comps.iter().map(|c| c.2.as_str()).collect();
            let c = self.b.java_constructor(r, &fqns).id();
            for (cname, ty, _) in &comps {
                let mut p = self.b.java_param(c, cname);
                if let Some(ty) = ty {
                    p.declared_type(ty.r);
                }
            }
            used.insert(format!("<init>({})", fqns.join(",")));
            // Its anchor is the record's span: set below with the type's.
            pending = Some(c);
            remaining -= 1 + 3 * k;
        }

        let mut implicit_ctor = false;
        let mut ctors_left = 0;
        if matches!(kind, Kind::Class | Kind::Enum | Kind::Record) && remaining >= 1 && pending.is_none() {
            if kind == Kind::Class && self.rng.chance(0.55) && remaining >= 3 {
                ctors_left = self.rng.range(1, 2);
            } else {
                implicit_ctor = true;
                remaining -= 1;
            }
        }
        // Enum constants first.
        if kind == Kind::Enum {
            let k = self.rng.range(2, 8).min(remaining);
            for i in 0..k {
                let cname = format!("{}_{i}", self.rng.pick(NOUNS).to_uppercase());
                let mut f = self.b.java_field(r, &cname);
                f.declared_type(r).anchor(&path, *line, *line);
                let fr = f.id();
                self.types[t].fields.push(fr);
                used.insert(cname);
                *line += 1;
            }
            remaining -= k;
        }
        while remaining > 0 {
            let roll = self.rng.f();
            if depth < 2 && remaining >= 8 && roll < 0.03 {
                // A nested type.
                let sub = self.rng.range(3, (remaining / 2).clamp(3, 40));
                let nkind =
                    *self.rng.pick(&[Kind::Class, Kind::Class, Kind::Class, Kind::Enum, Kind::Interface, Kind::Record]);
                let nname = loop {
                    let n = format!(
                        "{}{}",
                        self.rng.pick(NOUNS),
                        self.rng.pick(&["", "Entry", "Key", "Holder", "Result", "Row"])
                    );
                    if used.insert(n.clone()) {
                        break n;
                    }
                };
                let fqn = format!("{}.{nname}", self.types[t].fqn);
                let nr = {
                    let key = self.b.key(r).clone();
                    self.b.r(Key::new(key.module, format!("{}.{nname}", key.symbol)))
                };
                let nt = self.types.len();
                // Pre-order, counting down: below the outer type and all its
                // earlier nested types' keys stay above this one's children.
                self.nesting -= 1;
                let (k0, k1, _) = self.types[t].key;
                self.types.push(TypeInfo {
                    r: nr,
                    kind: nkind,
                    pkg: self.types[t].pkg,
                    file,
                    start: 0,
                    end: 0,
                    fqn,
                    budget: 0,
                    name: nname,
                    exception: false,
                    fields: Vec::new(),
                    key: (k0, k1, self.nesting),
                    outer: Some(t),
                    top: self.types[t].top,
                });
                self.pkgs[self.types[t].pkg].types.push(nt);
                *line += 1;
                self.declare_type(nt, r, sub, line, depth + 1);
                *line += 1;
                remaining -= sub;
            } else if roll < 0.30 || (kind == Kind::Annotation && roll < 0.4) {
                // A field; some are constants with a value.
                let constant = self.rng.chance(0.18) || kind == Kind::Interface;
                let fname = loop {
                    let base = *self.rng.pick(VARS);
                    let n = if constant {
                        format!("{}_{}", base.to_uppercase(), self.rng.below(1000))
                    } else {
                        format!("{base}{}", self.rng.below(100))
                    };
                    if used.insert(n.clone()) {
                        break n;
                    }
                };
                let (value, ty): (Option<Literal<Ref>>, Option<Ref>) = if constant {
                    match self.rng.below(4) {
                        0 => (Some(Literal::String(format!("m_{}", fname.to_lowercase()))), self.stub_named("String")),
                        1 => (Some(Literal::Number(self.rng.below(10_000).to_string())), None),
                        2 => (Some(Literal::Boolean(self.rng.chance(0.5))), None),
                        _ => (None, self.stub_named("String")),
                    }
                } else {
                    (None, self.param_type(t).1.map(|x| x.r))
                };
                let mut f = self.b.java_field(r, &fname);
                f.anchor(&path, *line, *line);
                if let Some(ty) = ty {
                    f.declared_type(ty);
                }
                if let Some(v) = value {
                    f.constant(v);
                }
                if self.rng.chance(0.05) {
                    f.doc(DOCS[self.rng.below(DOCS.len())]);
                }
                let fr = f.id();
                if let Some(ty) = ty {
                    self.typed.push((fr, file, *line, ty));
                }
                self.annotatable.push((fr, file, *line, t));
                self.types[t].fields.push(fr);
                *line += 1;
                remaining -= 1;
            } else if ctors_left > 0 && roll < 0.45 {
                ctors_left -= 1;
                remaining -= self.invocable(t, r, &path, None, remaining, line, &mut used);
            } else {
                let name = match kind {
                    Kind::Annotation => "value".to_owned(),
                    _ => format!("{}{}", self.rng.pick(VERBS), self.rng.pick(NOUNS)),
                };
                remaining -= self.invocable(t, r, &path, Some(name), remaining, line, &mut used);
            }
        }
        let end = *line;
        *line += 1;
        let sloc = (end - start + 1).saturating_sub(self.rng.below(3) as u32).max(1);
        self.b.edit(r).expect("declared").anchor(&path, start, end).measure("sloc", sloc as f64);
        self.types[t].start = start;
        self.types[t].end = end;
        if implicit_ctor {
            let c = self.b.java_implicit_constructor(r).id();
            self.sites.push(Site { r: c, file, start, end, ty: t, enc: self.sites.len() });
        }
        if let Some(c) = pending {
            self.b.edit(c).expect("declared").anchor(&path, start, end).measure("cyclomatic", 1.0);
            self.sites.push(Site { r: c, file, start, end, ty: t, enc: self.sites.len() });
        }
    }

    /// A method (`name` given) or constructor of type `t`, using at most `cap`
    /// entities; returns how many it used.
    #[allow(clippy::too_many_arguments)]
    fn invocable(
        &mut self,
        t: usize,
        owner: Ref,
        path: &str,
        mut name: Option<String>,
        cap: usize,
        line: &mut u32,
        used: &mut HashSet<String>,
    ) -> usize {
        let kind = self.types[t].kind;
        let file = self.types[t].file;
        let abstract_ = kind == Kind::Interface && self.rng.chance(0.85) || kind == Kind::Annotation;
        let mut spent = 1;
        let max_params = if kind == Kind::Annotation { 0 } else { (cap - spent).min(6) };
        let nparams = self.rng.geom(1.1).min(max_params);
        let params: Vec<(String, Option<TypeRef>)> = (0..nparams).map(|_| self.param_type(t)).collect();
        let mut signature;
        let mut attempt = 0;
        loop {
            let fqns: Vec<&str> = params.iter().map(|p| p.0.as_str()).collect();
            signature = match &name {
                Some(n) if attempt == 0 => format!("{n}({})", fqns.join(",")),
                Some(n) => format!("{n}{attempt}({})", fqns.join(",")),
                None => format!("<init>({})", fqns.join(",")),
            };
            if used.insert(signature.clone()) {
                break;
            }
            attempt += 1;
            if name.is_none() {
                // That constructor exists: make it a factory method instead.
                name = Some(format!("of{}", self.rng.pick(NOUNS)));
                attempt = 0;
            }
        }
        spent += params.len();
        let body = if abstract_ { 0 } else { 1 + self.rng.geom(7.0) as u32 };
        let start = *line;
        let end = start + if abstract_ { 0 } else { body + 1 };
        let fqns: Vec<&str> = params.iter().map(|p| p.0.as_str()).collect();
        let method_name = signature.split('(').next().unwrap_or("").to_owned();
        let ret = if name.is_some() && !self.rng.chance(0.3) { self.param_type(t).1 } else { None };
        let mut e = match &name {
            Some(_) => self.b.java_method(owner, &method_name, &fqns),
            None => self.b.java_constructor(owner, &fqns),
        };
        e.anchor(path, start, end);
        let cyclomatic = 1 + if abstract_ { 0 } else { self.rng.geom(1.2).min(body as usize) };
        e.measure("cyclomatic", cyclomatic as f64);
        e.measure("sloc", (end - start + 1) as f64);
        if let Some(ty) = &ret {
            e.declared_type(ty.r);
        }
        if kind == Kind::Annotation && self.rng.chance(0.5) {
            e.constant(Literal::<Ref>::String(String::new()));
        }
        if self.rng.chance(0.12) {
            e.doc(DOCS[self.rng.below(DOCS.len())]);
        }
        let m = e.id();
        if let Some(ty) = &ret {
            self.typed.push((m, file, start, ty.r));
        }
        let enc = self.sites.len();
        self.sites.push(Site { r: m, file, start, end, ty: t, enc });
        self.annotatable.push((m, file, start, t));
        let mut pnames = HashSet::new();
        for (fqn, ty) in &params {
            let _ = fqn;
            let pname = loop {
                let n = format!(
                    "{}{}",
                    self.rng.pick(VARS),
                    if pnames.len() > 3 { pnames.len().to_string() } else { String::new() }
                );
                if pnames.insert(n.clone()) {
                    break n;
                }
            };
            let mut p = self.b.java_param(m, &pname);
            p.at(start, start);
            if let Some(ty) = ty {
                p.declared_type(ty.r);
            }
            let pr = p.id();
            if let Some(ty) = ty {
                self.typed.push((pr, file, start, ty.r));
            }
            if self.rng.chance(0.05) {
                self.annotatable.push((pr, file, start, t));
            }
        }
        if !abstract_ {
            // Locals on distinct body lines.
            let nlocals = self.rng.geom(0.9).min(cap - spent).min(body as usize);
            let mut lines: Vec<u32> = Vec::new();
            for _ in 0..nlocals {
                let l = start + 1 + self.rng.below(body as usize) as u32;
                if !lines.contains(&l) {
                    lines.push(l);
                }
            }
            for l in lines {
                let lname = self.rng.pick(VARS).to_string();
                let ty = self.param_type(t).1;
                let mut v = self.b.java_local(m, &lname, l);
                v.at(l, l);
                if let Some(ty) = &ty {
                    v.declared_type(ty.r);
                }
                let vr = v.id();
                if let Some(ty) = ty {
                    self.typed.push((vr, file, l, ty.r));
                }
                spent += 1;
            }
            // Lambdas and, rarely, an anonymous class.
            let mut cols = HashSet::new();
            while cap > spent && self.rng.chance(0.16) {
                let l = start + 1 + self.rng.below(body as usize) as u32;
                let col = 9 + self.rng.below(60) as u32;
                if !cols.insert((l, col)) {
                    break;
                }
                if cap - spent >= 3 && self.rng.chance(0.08) && !self.stub_interfaces.is_empty() {
                    // Anonymous class: lambda kind, an implicit <init>() and one method.
                    let iface = *self.rng.pick(&self.stub_interfaces);
                    let fqn = self.fqn_of(iface);
                    let anon_end = (l + 4).min(end);
                    let a = self
                        .b
                        .java_anonymous_class(m, l, col, &fqn)
                        .at(l, anon_end)
                        .measure("sloc", (anon_end - l + 1) as f64)
                        .id();
                    let c = self.b.java_implicit_constructor(a).id();
                    let am = self
                        .b
                        .java_method(a, "apply", &[])
                        .at(l, anon_end)
                        .measure("cyclomatic", 1.0)
                        .measure("sloc", 1.0)
                        .id();
                    self.sites.push(Site { r: c, file, start: l, end: anon_end, ty: t, enc });
                    self.sites.push(Site { r: am, file, start: l, end: anon_end, ty: t, enc });
                    self.anon_creations.push((m, a, file, l));
                    self.typed.push((a, file, l, iface));
                    spent += 3;
                } else {
                    let lparams = if cap - spent >= 2 && self.rng.chance(0.5) { 1 } else { 0 };
                    let (pfqn, pty) = if lparams == 1 { self.param_type(t) } else { (String::new(), None) };
                    let lam = self
                        .b
                        .java_lambda(m, l, col, &format!("({pfqn})"))
                        .at(l, l)
                        .measure("cyclomatic", 1.0)
                        .measure("sloc", 1.0)
                        .id();
                    self.sites.push(Site { r: lam, file, start: l, end: l, ty: t, enc });
                    spent += 1;
                    if lparams == 1 {
                        let pname = self.rng.pick(VARS).to_string();
                        let mut p = self.b.java_param(lam, &pname);
                        p.at(l, l);
                        if let Some(ty) = pty {
                            p.declared_type(ty.r);
                        }
                        spent += 1;
                    }
                }
            }
        }
        *line = end + 1;
        spent
    }

    /// A parameter / field / return type: (erased FQN, entity if not primitive).
    fn param_type(&mut self, t: usize) -> (String, Option<TypeRef>) {
        let roll = self.rng.below(100);
        if roll < 30 {
            return (self.rng.pick(PRIMITIVES).to_string(), None);
        }
        if roll < 72 || self.types.len() < 2 {
            let s = self.stub_types[self.rng.skewed(self.stub_types.len())].clone();
            return (s.fqn.clone(), Some(s));
        }
        // Corpus types below this one in the layering (or itself), half from
        // the same package.
        let pos = self.top_pos[self.types[t].top];
        let lo = if self.rng.chance(0.5) { self.pkg_top[self.types[t].pkg].0 } else { 0 };
        let ti = if self.rng.chance(0.05) {
            t
        } else if lo < pos {
            self.top_order[lo + self.rng.below(pos - lo)]
        } else if pos > 0 {
            self.top_order[self.rng.below(pos)]
        } else {
            let s = self.stub_types[self.rng.skewed(self.stub_types.len())].clone();
            return (s.fqn.clone(), Some(s));
        };
        let ty = &self.types[ti];
        let fqn =
            if ty.kind == Kind::Class && self.rng.chance(0.05) { format!("{}[]", ty.fqn) } else { ty.fqn.clone() };
        (fqn, Some(TypeRef { r: ty.r, fqn: ty.fqn.clone() }))
    }

    fn stub_named(&self, simple: &str) -> Option<Ref> {
        self.stub_types.iter().find(|s| s.fqn.rsplit('.').next() == Some(simple)).map(|s| s.r)
    }

    fn fqn_of(&self, r: Ref) -> String {
        let k = self.b.key(r);
        format!("{}.{}", k.module, k.symbol)
    }

    // ----- edges ---------------------------------------------------------------

    fn edges(&mut self, m: usize) {
        self.rank_types();
        let share = |p: f64| (m as f64 * p).floor() as usize;
        let mut e = Edges { seen: HashSet::with_capacity(m), made: 0 };
        let targets = [
            ("invocation", share(0.26)),
            ("access", share(0.18)),
            ("import", share(0.06)),
            ("annotationUse", share(0.05)),
            ("inheritance", share(0.02)),
            ("interfaceImplementation", share(0.02)),
            ("throws", share(0.01)),
        ];
        for (kind, want) in targets {
            let before = e.made;
            match kind {
                "invocation" => self.invocations(&mut e, want),
                "access" => self.accesses(&mut e, want),
                "import" => self.imports(&mut e, want),
                "annotationUse" => self.annotation_uses(&mut e, want),
                "inheritance" => self.inheritances(&mut e, want),
                "interfaceImplementation" => self.implementations(&mut e, want),
                _ => self.throws(&mut e, want),
            }
            debug_assert!(e.made - before <= want);
        }
        // Everything else is a reference: typed declarations first, then uses.
        let want = m - e.made;
        self.references(&mut e, want);
    }

    /// Sorts every type, nested ones included, by key: `order`, `pos`, `pkg_span`.
    fn rank_types(&mut self) {
        let mut order: Vec<usize> = (0..self.types.len()).collect();
        order.sort_by_key(|&t| (self.types[t].key, t));
        self.pos = vec![0; order.len()];
        self.pkg_span = vec![(0, 0); self.pkgs.len()];
        for (i, &t) in order.iter().enumerate() {
            self.pos[t] = i;
            let p = self.types[t].pkg;
            if i == 0 || self.types[order[i - 1]].pkg != p {
                self.pkg_span[p].0 = i;
            }
            self.pkg_span[p].1 = i + 1;
        }
        self.order = order;
    }

    /// A type below `t` in the layering: from `t`'s package with chance
    /// `same_pkg` (if it has one below `t`), else from anywhere below.
    fn lower_type(&mut self, t: usize, same_pkg: f64) -> Option<usize> {
        let p = self.pos[t];
        let lo = self.pkg_span[self.types[t].pkg].0;
        if lo < p && self.rng.chance(same_pkg) {
            Some(self.order[lo + self.rng.below(p - lo)])
        } else if p > 0 {
            Some(self.order[self.rng.below(p)])
        } else {
            None
        }
    }

    /// Like [`Gen::lower_type`], among `list` (types sorted by layering).
    fn lower_in(&mut self, list: &[usize], t: usize, same_pkg: f64) -> Option<usize> {
        let hi = list.partition_point(|&x| self.pos[x] < self.pos[t]);
        let start = self.pkg_span[self.types[t].pkg].0;
        let lo = list.partition_point(|&x| self.pos[x] < start);
        if lo < hi && self.rng.chance(same_pkg) {
            Some(list[lo + self.rng.below(hi - lo)])
        } else if hi > 0 {
            Some(list[self.rng.below(hi)])
        } else {
            None
        }
    }

    /// The types matching `keep`, sorted by layering.
    fn types_where(&self, keep: impl Fn(&TypeInfo) -> bool) -> Vec<usize> {
        self.order.iter().copied().filter(|&t| keep(&self.types[t])).collect()
    }

    /// A stub type, popular ones first.
    fn stub(&mut self) -> Ref {
        self.stub_types[self.rng.skewed(self.stub_types.len())].r
    }

    /// An invocation from site `s` to site `o`, on a line of `s`.
    fn call(&mut self, e: &mut Edges, s: usize, to: Ref) {
        let (fr, file, start, end) = (self.sites[s].r, self.sites[s].file, self.sites[s].start, self.sites[s].end);
        let line = start + self.rng.below((end - start + 1) as usize) as u32;
        e.add(&mut self.b, "invocation", fr, to, "declared", &self.files[file], line, line);
    }

    /// A reference from type `t` (its declaration line) to type `to`.
    fn type_ref(&mut self, e: &mut Edges, t: usize, to: usize) {
        let (fr, to, file, line) = (self.types[t].r, self.types[to].r, self.types[t].file, self.types[t].start);
        e.add(&mut self.b, "reference", fr, to, "declared", &self.files[file], line, line);
    }

    fn invocations(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        if self.sites.len() < 2 {
            return;
        }
        // Anonymous classes are invoked by the method creating them.
        for (from, to, file, line) in std::mem::take(&mut self.anon_creations) {
            if e.made < until {
                e.add(&mut self.b, "invocation", from, to, "declared", &self.files[file], line, line);
            }
        }
        // The call order: sites by (type's layer, operation); a call goes to a
        // site of a lower operation, so the call graph is acyclic but for the
        // rings below. `floor[s]`: the first place of `s`'s operation.
        let n = self.sites.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&s| (self.pos[self.sites[s].ty], self.sites[s].enc, s));
        let mut floor = vec![0usize; n];
        let mut type_start = vec![0usize; self.types.len()];
        let mut pkg_start = vec![0usize; self.pkgs.len()];
        let mut type_ops: Vec<Vec<usize>> = vec![Vec::new(); self.types.len()];
        let mut group = 0;
        for (i, &s) in order.iter().enumerate() {
            let (ty, enc) = (self.sites[s].ty, self.sites[s].enc);
            let pkg = self.types[ty].pkg;
            let prev = (i > 0).then(|| &self.sites[order[i - 1]]);
            if prev.is_none_or(|p| (p.ty, p.enc) != (ty, enc)) {
                group = i;
            }
            floor[s] = group;
            if prev.is_none_or(|p| p.ty != ty) {
                type_start[ty] = i;
            }
            if prev.is_none_or(|p| self.types[p.ty].pkg != pkg) {
                pkg_start[pkg] = i;
            }
            if enc == s {
                type_ops[ty].push(s);
            }
        }
        // Mutual recursion: rings of 2–8 neighbouring operations of one type (a
        // chain down the call order and one call back up), never overlapping,
        // so each is a cycle of its own.
        let mut claimed = vec![false; n];
        let rings = (want / 500).max(1);
        let (mut made, mut tries) = (0, 0);
        while made < rings && tries < rings * 20 {
            tries += 1;
            let ops = &type_ops[self.sites[self.rng.below(n)].ty];
            if ops.len() < 2 {
                continue;
            }
            let k = (2 + self.rng.geom(0.8)).min(8).min(ops.len());
            let at = self.rng.below(ops.len() - k + 1);
            let ring = ops[at..at + k].to_vec();
            if ring.iter().any(|&s| claimed[s]) {
                continue;
            }
            made += 1;
            for (i, &s) in ring.iter().enumerate() {
                claimed[s] = true;
                let callee = if i == 0 { ring[k - 1] } else { ring[i - 1] };
                if e.made < until {
                    let to = self.sites[callee].r;
                    self.call(e, s, to);
                }
            }
        }
        // Everything else goes down the call order: to a nearby operation of
        // the same type, to one of the same package, to any, or to a stub.
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let s = self.rng.below(n);
            let to = if self.rng.chance(0.3) {
                None
            } else {
                let ty = self.sites[s].ty;
                let hi = floor[s];
                let ranges =
                    [(type_start[ty].max(hi.saturating_sub(12)), hi), (pkg_start[self.types[ty].pkg], hi), (0, hi)];
                let roll = self.rng.f();
                let first = if roll < 0.5 {
                    0
                } else if roll < 0.75 {
                    1
                } else {
                    2
                };
                ranges[first..]
                    .iter()
                    .copied()
                    .find(|r| r.0 < r.1)
                    .map(|(lo, hi)| self.sites[order[lo + self.rng.below(hi - lo)]].r)
            };
            let to = match to {
                Some(to) => to,
                None => self.stub(),
            };
            self.call(e, s, to);
        }
    }

    fn accesses(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let with_fields = self.types_where(|t| !t.fields.is_empty());
        if self.sites.is_empty() || with_fields.is_empty() {
            return;
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let s = self.rng.below(self.sites.len());
            let own = self.sites[s].ty;
            let has_own = !self.types[own].fields.is_empty();
            let lower = if self.rng.chance(0.08) || (self.rng.chance(0.7) && has_own) {
                None
            } else {
                self.lower_in(&with_fields, own, 0.5)
            };
            let to = match lower {
                Some(t) => *self.rng.pick(&self.types[t].fields),
                None if has_own && !self.rng.chance(0.1) => *self.rng.pick(&self.types[own].fields),
                None => self.stub(),
            };
            let f = &self.sites[s];
            let line = f.start + self.rng.below((f.end - f.start + 1) as usize) as u32;
            let (fr, file) = (f.r, f.file);
            let (read, write) = match self.rng.below(10) {
                0..=6 => (true, false),
                7..=8 => (false, true),
                _ => (true, true),
            };
            if let Some(mut x) = e.add(&mut self.b, "access", fr, to, "declared", &self.files[file], line, line) {
                x.access(read, write);
            }
        }
    }

    /// An import of package `y` into package `x`, declared in one of `x`'s files.
    fn import(&mut self, e: &mut Edges, x: usize, y: usize) {
        let file = *self.rng.pick(&self.pkgs[x].files);
        let line = self.rng.range(3, 12) as u32;
        let (fr, to) = (self.pkgs[x].r, self.pkgs[y].r);
        e.add(&mut self.b, "import", fr, to, "declared", &self.files[file], line, line);
    }

    fn imports(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let np = self.pkgs.len();
        let mut by_rank = vec![0usize; np];
        for (p, &r) in self.pkg_rank.iter().enumerate() {
            by_rank[r as usize] = p;
        }
        // Package tangles: runs of packages adjacent in the layering, importing
        // each other in a ring (plus a few imports inside the run). A run holds
        // no other package, so each tangle is exactly its run: 2–4 small ones
        // and, in a large corpus, one of 20–50 packages.
        let mut sizes: Vec<usize> = (0..2 + self.rng.below(3)).map(|_| self.rng.range(2, 4)).collect();
        if np >= 200 {
            sizes.push((np / 12).clamp(20, 50));
        }
        let mut claimed = vec![false; np];
        for size in sizes {
            if size > np {
                continue;
            }
            for _ in 0..20 {
                let lo = self.rng.below(np - size + 1);
                if claimed[lo..lo + size].iter().any(|&c| c) {
                    continue;
                }
                claimed[lo..lo + size].fill(true);
                let run = by_rank[lo..lo + size].to_vec();
                let mut pairs: Vec<(usize, usize)> = (1..size).map(|i| (run[i], run[i - 1])).collect();
                pairs.push((run[0], run[size - 1]));
                for _ in 0..size / 2 {
                    pairs.push((*self.rng.pick(&run), *self.rng.pick(&run)));
                }
                for (x, y) in pairs {
                    if e.made < until && x != y {
                        self.import(e, x, y);
                    }
                }
                break;
            }
        }
        // Everything else: a stub package or a package lower in the layering.
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let p = self.rng.skewed(np);
            let rank = self.pkg_rank[p] as usize;
            let (to, prov) = if self.rng.chance(0.55) || rank == 0 {
                let s = self.stub_pkgs[self.rng.skewed(self.stub_pkgs.len())];
                (s, if self.rng.chance(0.02) { "derived" } else { "declared" })
            } else {
                (self.pkgs[by_rank[self.rng.below(rank)]].r, "declared")
            };
            let file = *self.rng.pick(&self.pkgs[p].files);
            let line = self.rng.range(3, 16) as u32;
            let fr = self.pkgs[p].r;
            e.add(&mut self.b, "import", fr, to, prov, &self.files[file], line, line);
        }
    }

    fn annotation_uses(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let stubs = self.stub_annotations.len();
        let corpus = self.types_where(|t| t.kind == Kind::Annotation);
        if stubs + corpus.len() == 0 || self.annotatable.is_empty() {
            return;
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let (from, file, line, t) = *self.rng.pick(&self.annotatable);
            let i = self.rng.skewed(stubs + corpus.len());
            let to = if i < stubs {
                self.stub_annotations[i]
            } else {
                match self.lower_in(&corpus, t, 0.3) {
                    Some(a) => self.types[a].r,
                    None if stubs > 0 => self.stub_annotations[self.rng.skewed(stubs)],
                    None => continue,
                }
            };
            let line = line.saturating_sub(self.rng.below(2) as u32).max(1);
            let args: Vec<NamedArgument<Ref>> = match self.rng.below(10) {
                0..=5 => Vec::new(),
                6 | 7 => vec![NamedArgument {
                    name: "value".into(),
                    value: Literal::String(format!("/{}", self.rng.pick(SEGMENTS))),
                }],
                8 => vec![
                    NamedArgument { name: "name".into(), value: Literal::String(self.rng.pick(VARS).to_string()) },
                    NamedArgument { name: "nullable".into(), value: Literal::Boolean(self.rng.chance(0.5)) },
                ],
                _ => vec![NamedArgument {
                    name: "value".into(),
                    value: match self.rng.below(3) {
                        0 => Literal::Unevaluated(format!("{}Constants.RESOURCE_NAME", self.rng.pick(NOUNS))),
                        1 => Literal::Array(vec![
                            Literal::String("unchecked".into()),
                            Literal::String("rawtypes".into()),
                        ]),
                        _ => Literal::Type { ty: self.stub_types[self.rng.skewed(self.stub_types.len())].r },
                    },
                }],
            };
            if let Some(mut x) =
                e.add(&mut self.b, "annotationUse", from, to, "declared", &self.files[file], line, line)
            {
                if !args.is_empty() {
                    x.arguments(args);
                }
            }
        }
    }

    fn inheritances(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let classes = self.types_where(|t| t.kind == Kind::Class && !t.exception);
        let interfaces = self.types_where(|t| t.kind == Kind::Interface);
        let exceptions = self.types_where(|t| t.exception);
        let base_exception = self.stub_named("RuntimeException");
        // Each class extends at most one type; interfaces extend a few. All go
        // down the layering (or to stubs).
        let mut order: Vec<usize> = (0..self.types.len()).filter(|&t| self.types[t].kind == Kind::Class).collect();
        order.extend(interfaces.iter().chain(&interfaces));
        shuffle(&mut self.rng, &mut order);
        for t in order {
            if e.made >= until {
                break;
            }
            let (exception, kind) = (self.types[t].exception, self.types[t].kind);
            let to = if exception {
                let lower = if self.rng.chance(0.4) { self.lower_in(&exceptions, t, 0.5) } else { None };
                match (lower, base_exception) {
                    (Some(x), _) => self.types[x].r,
                    (None, Some(b)) => b,
                    (None, None) => continue,
                }
            } else if kind == Kind::Interface {
                let lower = if self.rng.chance(0.5) { self.lower_in(&interfaces, t, 0.5) } else { None };
                match lower {
                    Some(x) => self.types[x].r,
                    None if !self.stub_interfaces.is_empty() => *self.rng.pick(&self.stub_interfaces),
                    None => continue,
                }
            } else {
                // Same package first: abstract bases live beside their subclasses.
                let lower = if self.rng.chance(0.8) { self.lower_in(&classes, t, 0.8) } else { None };
                match lower {
                    Some(x) => self.types[x].r,
                    None => self.stub(),
                }
            };
            let ty = &self.types[t];
            if to == ty.r || self.extends_reaches(to, ty.r) {
                continue;
            }
            let (fr, file, line) = (ty.r, ty.file, ty.start);
            if e.add(&mut self.b, "inheritance", fr, to, "declared", &self.files[file], line, line).is_some() {
                self.extends.entry(fr).or_default().push(to);
            }
        }
    }

    /// Whether following `extends` from `from` reaches `to` (Java forbids cycles).
    fn extends_reaches(&self, from: Ref, to: Ref) -> bool {
        let mut stack = vec![from];
        let mut seen = HashSet::new();
        while let Some(x) = stack.pop() {
            if x == to {
                return true;
            }
            if seen.insert(x) {
                stack.extend(self.extends.get(&x).into_iter().flatten().copied());
            }
        }
        false
    }

    fn implementations(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let implementors: Vec<usize> = (0..self.types.len())
            .filter(|&t| matches!(self.types[t].kind, Kind::Class | Kind::Enum | Kind::Record))
            .collect();
        let interfaces = self.types_where(|t| t.kind == Kind::Interface);
        let stubs = self.stub_interfaces.len();
        if implementors.is_empty() || interfaces.len() + stubs == 0 {
            return;
        }
        let mut order: Vec<usize> = implementors.iter().chain(&implementors).chain(&implementors).copied().collect();
        shuffle(&mut self.rng, &mut order);
        for t in order {
            if e.made >= until {
                break;
            }
            let lower = if self.rng.chance(0.7) { self.lower_in(&interfaces, t, 0.4) } else { None };
            let to = match lower {
                Some(i) => self.types[i].r,
                None if stubs > 0 => self.stub_interfaces[self.rng.skewed(stubs)],
                None => continue,
            };
            let ty = &self.types[t];
            let (fr, file, line) = (ty.r, ty.file, ty.start);
            e.add(&mut self.b, "interfaceImplementation", fr, to, "declared", &self.files[file], line, line);
        }
    }

    fn throws(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let exceptions = self.types_where(|t| t.exception);
        if exceptions.is_empty() && self.stub_exceptions.is_empty() || self.sites.is_empty() {
            return;
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let s = self.rng.below(self.sites.len());
            let lower = if self.rng.chance(0.8) { self.lower_in(&exceptions, self.sites[s].ty, 0.3) } else { None };
            let to = match lower {
                Some(x) => self.types[x].r,
                None if !self.stub_exceptions.is_empty() => *self.rng.pick(&self.stub_exceptions),
                None => continue,
            };
            let s = &self.sites[s];
            let line = s.start + self.rng.below((s.end - s.start + 1) as usize) as u32;
            let (fr, file) = (s.r, s.file);
            e.add(&mut self.b, "throws", fr, to, "declared", &self.files[file], line, line);
        }
    }

    fn references(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let n = self.types.len();
        // Deliberate type cycles, each over a run of the layering no other
        // cycle touches (so none merge). Nested types referring to their outer
        // type (a builder building it, an entry naming its map): the outer type
        // already depends on them, so they form a cycle with at most the outer
        // type's other nested types between them.
        let mut claimed = vec![false; n];
        for t in 0..n {
            let Some(o) = self.types[t].outer else { continue };
            let (lo, hi) = (self.pos[t], self.pos[o]);
            if !self.rng.chance(0.3) || claimed[lo..=hi].iter().any(|&c| c) {
                continue;
            }
            claimed[lo..=hi].fill(true);
            if e.made < until {
                self.type_ref(e, t, o);
            }
        }
        // Small tangles: 2–20 types adjacent in one package, a chain of
        // references down the layering and one back up.
        let rings = (n / 40).max(1);
        let (mut made, mut tries) = (0, 0);
        while n >= 2 && made < rings && tries < rings * 20 {
            tries += 1;
            let k = if self.rng.chance(0.1) { self.rng.range(6, 20) } else { 2 + self.rng.geom(0.7) };
            let k = k.min(20).min(n);
            let lo = self.rng.below(n - k + 1);
            let hi = lo + k - 1;
            let (a, b) = (self.order[lo], self.order[hi]);
            if self.types[a].pkg != self.types[b].pkg || claimed[lo..=hi].iter().any(|&c| c) {
                continue;
            }
            claimed[lo..=hi].fill(true);
            made += 1;
            for i in lo..=hi {
                let (f, o) = if i == lo { (a, b) } else { (self.order[i], self.order[i - 1]) };
                if e.made < until {
                    self.type_ref(e, f, o);
                }
            }
        }
        // Every declared type of a field, parameter, local, return type.
        for i in 0..self.typed.len() {
            if e.made >= until {
                break;
            }
            let (from, file, line, to) = self.typed[i];
            e.add(&mut self.b, "reference", from, to, "declared", &self.files[file], line, line);
        }
        // Uses inside bodies (casts, generic arguments, static calls' types).
        let mut tries = 0usize;
        while e.made < until {
            tries += 1;
            let (fr, ty, file, line) = if self.sites.is_empty() || self.rng.chance(0.1) {
                let t = self.rng.below(n);
                let (start, end) = (self.types[t].start, self.types[t].end);
                (self.types[t].r, t, self.types[t].file, start + self.rng.below((end - start + 1) as usize) as u32)
            } else {
                let s = self.rng.below(self.sites.len());
                let (start, end) = (self.sites[s].start, self.sites[s].end);
                // After many collisions (tiny corpus, huge edge count) widen the lines.
                let extra = (tries / 1_000_000) as u32 * 1000;
                let line = start + self.rng.below((end - start + 1) as usize) as u32 + extra;
                (self.sites[s].r, self.sites[s].ty, self.sites[s].file, line)
            };
            let lower = if self.rng.chance(0.55) { None } else { self.lower_type(ty, 0.5) };
            let to = match lower {
                Some(x) => self.types[x].r,
                None => self.stub(),
            };
            e.add(&mut self.b, "reference", fr, to, "declared", &self.files[file], line, line);
        }
    }
}

fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
}

/// Edge bookkeeping: exact counts, no duplicates, no self-edges.
struct Edges {
    seen: HashSet<(Ref, Ref, u8, u32)>,
    made: usize,
}

impl Edges {
    #[allow(clippy::too_many_arguments)]
    fn add<'b>(
        &mut self,
        b: &'b mut ModelBuilder,
        kind: &str,
        from: Ref,
        to: Ref,
        provenance: &str,
        path: &str,
        start: u32,
        end: u32,
    ) -> Option<model::builder::EdgeBuilder<'b>> {
        if from == to {
            return None;
        }
        let k = match kind {
            "reference" => 0,
            "invocation" => 1,
            "access" => 2,
            "import" => 3,
            "annotationUse" => 4,
            "inheritance" => 5,
            "interfaceImplementation" => 6,
            _ => 7,
        };
        if !self.seen.insert((from, to, k, start)) {
            return None;
        }
        self.made += 1;
        Some(b.edge(kind, from, to, provenance, (path, start, end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_counts_deterministic_and_clean() {
        for (n, m, seed) in [(40, 0, 1), (60, 500, 2), (3_000, 9_700, 3), (12_000, 30_000, 4)] {
            let text = generate(n, m, seed).unwrap().build().unwrap();
            assert_eq!(text, generate(n, m, seed).unwrap().build().unwrap(), "deterministic");
            let model = model::read_model(text.as_bytes(), "synth").unwrap_or_else(|e| panic!("{n}/{m}: {e}"));
            assert_eq!(model.entity_count() as usize, n);
            assert_eq!(model.edge_count() as usize, m);
            assert!(model.findings().is_empty(), "{n}/{m}: {:?}", model.findings().kept);
        }
    }

    /// The largest strongly connected groups as the insights walk sees them:
    /// [operations, types, packages]. Operations: invocations between corpus
    /// methods and constructors (a lambda's calls count for its enclosing
    /// operation); types: every edge folded to corpus types, plus outer type →
    /// nested type; packages: imports.
    fn largest_cycles(model: &model::Model) -> [usize; 3] {
        use analyzer::CodeGraph;
        use model::{EdgeKind, Trait};
        let g = CodeGraph::new(model);
        let is_op = |i: u32| matches!(g.kind(i), "method" | "constructor") && !g.is_stub(i);
        let enclosing = |mut i: u32| loop {
            if is_op(i) {
                return Some(i);
            }
            if g.has_trait(i, Trait::Type) || g.has_trait(i, Trait::Module) {
                return None;
            }
            i = g.parent_of(i)?;
        };
        let corpus_type = |i: u32| g.containing_type(i).filter(|&t| !g.is_stub(t));
        let corpus_module = |i: u32| g.containing_module(i).filter(|&m| !g.is_stub(m));
        let mut succ: [Vec<Vec<u32>>; 3] = std::array::from_fn(|_| vec![Vec::new(); g.len()]);
        let mut add = |level: usize, from: Option<u32>, to: Option<u32>| {
            if let (Some(f), Some(t)) = (from, to) {
                if f != t {
                    succ[level][f as usize].push(t);
                }
            }
        };
        for e in model.edges() {
            if e.kind == EdgeKind::Invocation {
                add(0, enclosing(e.from), enclosing(e.to));
            }
            if e.kind == EdgeKind::Import {
                add(2, corpus_module(e.from), corpus_module(e.to));
            }
            add(1, corpus_type(e.from), corpus_type(e.to));
        }
        for i in 0..g.len() as u32 {
            if g.has_trait(i, Trait::Type) && !g.is_stub(i) {
                add(1, g.parent_of(i).filter(|&p| g.has_trait(p, Trait::Type)), Some(i));
            }
        }
        succ.map(|s| analyzer::scc::condense(&s).components.iter().map(Vec::len).max().unwrap_or(0))
    }

    #[test]
    fn mostly_acyclic_with_small_cycles() {
        for (n, m, seed) in [(12_000, 30_000, 4), (12_000, 30_000, 5), (40_000, 130_000, 6)] {
            let text = generate(n, m, seed).unwrap().build().unwrap();
            let model = model::read_model(text.as_bytes(), "synth").unwrap();
            let [ops, types, pkgs] = largest_cycles(&model);
            eprintln!("{n}/{m}/{seed}: largest cycles: {ops} operations, {types} types, {pkgs} packages");
            assert!((2..=100).contains(&ops), "{n}/{m}: {ops} operations in one cycle");
            assert!((2..=300).contains(&types), "{n}/{m}: {types} types in one cycle");
            assert!((2..=60).contains(&pkgs), "{n}/{m}: {pkgs} packages in one cycle");
        }
    }
}
