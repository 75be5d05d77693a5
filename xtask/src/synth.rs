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
//! interfaceImplementation 2 %, throws 1 %; a few derived imports), with call,
//! type and package cycles. Where a kind cannot be filled sensibly (e.g. more
//! inheritance edges than types could declare) the rest become references.

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
}

/// An invocable (method, constructor, lambda) with its span.
struct Site {
    r: Ref,
    file: usize,
    start: u32,
    end: u32,
    ty: usize,
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
    /// Entities that may carry annotations: (entity, file, line).
    annotatable: Vec<(Ref, usize, u32)>,
    /// Anonymous-class creations: (creating method, anonymous class, file, line).
    anon_creations: Vec<(Ref, Ref, usize, u32)>,
    /// `extends` edges made so far (Java forbids cycles among them).
    extends: std::collections::HashMap<Ref, Vec<Ref>>,
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

        // Parentless stubs invented inside corpus packages (§12.2).
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
            self.pkgs[pkg].types.push(self.types.len());
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
            });
        }
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
        self.annotatable.push((r, file, start));
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
                self.sites.push(Site { r: mr, file, start, end: start, ty: t });
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
                self.annotatable.push((fr, file, *line));
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
            self.sites.push(Site { r: c, file, start, end, ty: t });
        }
        if let Some(c) = pending {
            self.b.edit(c).expect("declared").anchor(&path, start, end).measure("cyclomatic", 1.0);
            self.sites.push(Site { r: c, file, start, end, ty: t });
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
        self.sites.push(Site { r: m, file, start, end, ty: t });
        self.annotatable.push((m, file, start));
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
                self.annotatable.push((pr, file, start));
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
                    self.sites.push(Site { r: c, file, start: l, end: anon_end, ty: t });
                    self.sites.push(Site { r: am, file, start: l, end: anon_end, ty: t });
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
                    self.sites.push(Site { r: lam, file, start: l, end: l, ty: t });
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
        // Corpus types: half from the same package.
        let pkg = self.types[t].pkg;
        let ti = if self.rng.chance(0.5) && self.pkgs[pkg].types.len() > 1 {
            *self.rng.pick(&self.pkgs[pkg].types)
        } else {
            self.rng.below(self.types.len())
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
        // Call cycles: a → b → c → a inside one type or package.
        let cycles = (want / 400).max(1);
        for _ in 0..cycles {
            let a = self.rng.below(self.sites.len());
            let len = self.rng.range(2, 4);
            let mut ring = vec![a];
            for _ in 1..len {
                ring.push(self.near_site(a));
            }
            for i in 0..ring.len() {
                let (f, o) = (&self.sites[ring[i]], &self.sites[ring[(i + 1) % ring.len()]]);
                if e.made < until && f.r != o.r {
                    let line = f.start + self.rng.below((f.end - f.start + 1) as usize) as u32;
                    let (fr, or, file) = (f.r, o.r, f.file);
                    e.add(&mut self.b, "invocation", fr, or, "declared", &self.files[file], line, line);
                }
            }
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let s = self.rng.below(self.sites.len());
            let to = if self.rng.chance(0.3) {
                self.stub_types[self.rng.skewed(self.stub_types.len())].r
            } else if self.rng.chance(0.55) {
                let n = self.near_site(s);
                self.sites[n].r
            } else {
                self.sites[self.rng.below(self.sites.len())].r
            };
            let f = &self.sites[s];
            let line = f.start + self.rng.below((f.end - f.start + 1) as usize) as u32;
            let (fr, file) = (f.r, f.file);
            e.add(&mut self.b, "invocation", fr, to, "declared", &self.files[file], line, line);
        }
    }

    /// Another invocable of the same type (or, failing that, the same file).
    fn near_site(&mut self, s: usize) -> usize {
        let lo = s.saturating_sub(12);
        let hi = (s + 12).min(self.sites.len() - 1);
        let c = self.rng.range(lo, hi);
        if c == s {
            if s + 1 < self.sites.len() {
                s + 1
            } else {
                s.saturating_sub(1)
            }
        } else {
            c
        }
    }

    fn accesses(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let with_fields: Vec<usize> = (0..self.types.len()).filter(|&t| !self.types[t].fields.is_empty()).collect();
        if self.sites.is_empty() || with_fields.is_empty() {
            return;
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let s = self.rng.below(self.sites.len());
            let own = self.sites[s].ty;
            let to = if self.rng.chance(0.08) {
                self.stub_types[self.rng.skewed(self.stub_types.len())].r
            } else if self.rng.chance(0.7) && !self.types[own].fields.is_empty() {
                *self.rng.pick(&self.types[own].fields)
            } else {
                let t = *self.rng.pick(&with_fields);
                *self.rng.pick(&self.types[t].fields)
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

    fn imports(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let np = self.pkgs.len();
        // Package cycles: pairs importing each other.
        if np >= 2 {
            for _ in 0..(want / 200).max(1) {
                let a = self.rng.below(np);
                let b = (a + 1 + self.rng.below(np - 1)) % np;
                for (x, y) in [(a, b), (b, a)] {
                    let file = *self.rng.pick(&self.pkgs[x].files);
                    let line = self.rng.range(3, 12) as u32;
                    if e.made < until {
                        let (fr, to) = (self.pkgs[x].r, self.pkgs[y].r);
                        e.add(&mut self.b, "import", fr, to, "declared", &self.files[file], line, line);
                    }
                }
            }
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let p = self.rng.skewed(np);
            let (to, prov) = if self.rng.chance(0.55) {
                let s = self.stub_pkgs[self.rng.skewed(self.stub_pkgs.len())];
                (s, if self.rng.chance(0.02) { "derived" } else { "declared" })
            } else {
                (self.pkgs[self.rng.below(np)].r, "declared")
            };
            let file = *self.rng.pick(&self.pkgs[p].files);
            let line = self.rng.range(3, 16) as u32;
            let fr = self.pkgs[p].r;
            e.add(&mut self.b, "import", fr, to, prov, &self.files[file], line, line);
        }
    }

    fn annotation_uses(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let mut annotations: Vec<Ref> = self.stub_annotations.clone();
        annotations.extend(self.types.iter().filter(|t| t.kind == Kind::Annotation).map(|t| t.r));
        if annotations.is_empty() || self.annotatable.is_empty() {
            return;
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let (from, file, line) = *self.rng.pick(&self.annotatable);
            let to = annotations[self.rng.skewed(annotations.len())];
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
        let classes: Vec<usize> = (0..self.types.len()).filter(|&t| self.types[t].kind == Kind::Class).collect();
        let interfaces: Vec<usize> = (0..self.types.len()).filter(|&t| self.types[t].kind == Kind::Interface).collect();
        let exceptions: Vec<usize> = classes.iter().copied().filter(|&t| self.types[t].exception).collect();
        let base_exception = self.stub_named("RuntimeException");
        // Each class extends at most one type; interfaces extend a few.
        let mut order: Vec<usize> = classes.iter().chain(&interfaces).chain(&interfaces).copied().collect();
        shuffle(&mut self.rng, &mut order);
        for t in order {
            if e.made >= until {
                break;
            }
            let ty = &self.types[t];
            let to = if ty.exception {
                match (base_exception, exceptions.len() > 1 && self.rng.chance(0.4)) {
                    (_, true) => self.types[*self.rng.pick(&exceptions)].r,
                    (Some(b), false) => b,
                    (None, false) => continue,
                }
            } else if ty.kind == Kind::Interface {
                if self.rng.chance(0.5) && interfaces.len() > 1 {
                    self.types[*self.rng.pick(&interfaces)].r
                } else if !self.stub_interfaces.is_empty() {
                    *self.rng.pick(&self.stub_interfaces)
                } else {
                    continue;
                }
            } else if self.rng.chance(0.8) && classes.len() > 1 {
                // Same package first: abstract bases live beside their subclasses.
                let pkg = &self.pkgs[ty.pkg].types;
                let c = *self.rng.pick(pkg);
                if self.types[c].kind == Kind::Class && !self.types[c].exception {
                    self.types[c].r
                } else {
                    self.types[*self.rng.pick(&classes)].r
                }
            } else {
                self.stub_types[self.rng.skewed(self.stub_types.len())].r
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
        let interfaces: Vec<Ref> = self
            .types
            .iter()
            .filter(|t| t.kind == Kind::Interface)
            .map(|t| t.r)
            .chain(self.stub_interfaces.iter().copied())
            .collect();
        if implementors.is_empty() || interfaces.is_empty() {
            return;
        }
        let mut order: Vec<usize> = implementors.iter().chain(&implementors).chain(&implementors).copied().collect();
        shuffle(&mut self.rng, &mut order);
        for t in order {
            if e.made >= until {
                break;
            }
            let to = interfaces[self.rng.skewed(interfaces.len())];
            let ty = &self.types[t];
            let (fr, file, line) = (ty.r, ty.file, ty.start);
            e.add(&mut self.b, "interfaceImplementation", fr, to, "declared", &self.files[file], line, line);
        }
    }

    fn throws(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        let mut exceptions: Vec<Ref> = self.types.iter().filter(|t| t.exception).map(|t| t.r).collect();
        exceptions.extend(self.stub_exceptions.iter().copied());
        if exceptions.is_empty() || self.sites.is_empty() {
            return;
        }
        let mut tries = 0;
        while e.made < until && tries < want * 20 {
            tries += 1;
            let s = &self.sites[self.rng.below(self.sites.len())];
            let to = *self.rng.pick(&exceptions);
            let line = s.start + self.rng.below((s.end - s.start + 1) as usize) as u32;
            let (fr, file) = (s.r, s.file);
            e.add(&mut self.b, "throws", fr, to, "declared", &self.files[file], line, line);
        }
    }

    fn references(&mut self, e: &mut Edges, want: usize) {
        let until = e.made + want;
        // Type cycles: A refers to B and B to A.
        if self.types.len() >= 2 {
            for _ in 0..(want / 500).max(1) {
                let a = self.rng.below(self.types.len());
                let b = (a + 1 + self.rng.below(self.types.len() - 1)) % self.types.len();
                for (x, y) in [(a, b), (b, a)] {
                    if e.made < until {
                        let (fr, to, file, line) =
                            (self.types[x].r, self.types[y].r, self.types[x].file, self.types[x].start);
                        e.add(&mut self.b, "reference", fr, to, "declared", &self.files[file], line, line);
                    }
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
        let all_types: Vec<Ref> = self.types.iter().map(|t| t.r).collect();
        let mut tries = 0usize;
        while e.made < until {
            tries += 1;
            let to = if self.rng.chance(0.55) || all_types.is_empty() {
                self.stub_types[self.rng.skewed(self.stub_types.len())].r
            } else {
                *self.rng.pick(&all_types)
            };
            if self.sites.is_empty() || self.rng.chance(0.1) {
                let t = &self.types[self.rng.below(self.types.len())];
                let line = t.start + self.rng.below((t.end - t.start + 1) as usize) as u32;
                let (fr, file) = (t.r, t.file);
                e.add(&mut self.b, "reference", fr, to, "declared", &self.files[file], line, line);
            } else {
                let s = &self.sites[self.rng.below(self.sites.len())];
                // After many collisions (tiny corpus, huge edge count) widen the lines.
                let extra = (tries / 1_000_000) as u32 * 1000;
                let line = s.start + self.rng.below((s.end - s.start + 1) as usize) as u32 + extra;
                let (fr, file) = (s.r, s.file);
                e.add(&mut self.b, "reference", fr, to, "declared", &self.files[file], line, line);
            }
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
}
