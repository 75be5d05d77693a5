//! The page's state: one signal per thing shown, changed by the Worker's
//! messages ([`Ui::apply`]) and by the user.

use crate::protocol::{
    FromWorker, LoadError, ModelSummary, PlanSettings, PlanView, RowPage, RowQuery, RunProgress, RunReport,
    SourceSummary, StoreInfo, StoreStatus, ToWorker, PROTOCOL_VERSION,
};
use leptos::prelude::*;

/// Rows per page of the plan's table.
pub const PAGE: u64 = 50;

#[derive(Clone, Debug, PartialEq)]
pub enum Load {
    Idle,
    Reading { bytes: u64, total: Option<u64> },
    Loaded(ModelSummary),
    Failed(LoadError),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    None,
    Reading,
    Loaded(SourceSummary),
    Failed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Planning {
    Idle,
    Running,
    Planned(PlanView),
    Failed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Running {
    Idle,
    /// Asked for; nothing back yet.
    Starting,
    Going(RunProgress),
    Finished(RunReport),
    Failed(String),
}

/// The provider form (what the user typed; the key stays in memory unless
/// "remember on this device" is ticked).
#[derive(Clone, Copy)]
pub struct ProviderForm {
    pub kind: RwSignal<String>,
    pub key: RwSignal<String>,
    pub account: RwSignal<String>,
    pub gateway: RwSignal<String>,
    pub base_url: RwSignal<String>,
    pub remember: RwSignal<bool>,
    pub price_in: RwSignal<String>,
    pub price_out: RwSignal<String>,
    pub concurrency: RwSignal<String>,
    pub max_tokens: RwSignal<String>,
    /// `detect` or a mode name (`llm::OutputMode::CHOICES`).
    pub output_mode: RwSignal<String>,
}

/// The demo's guided first look: plan, run offline, then open Navigate on
/// a central unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tour {
    Off,
    /// Waiting for a plan made with the demo's source.
    Planning,
    /// The run is going; Navigate opens when it ends.
    Running,
}

/// Every signal of the page (all `Copy`).
/// What the page asks before an import: replace `held` records by the
/// file's `incoming`, or (a cut-short file, `truncated` says why) merge them.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportQuestion {
    pub held: u64,
    pub incoming: u64,
    pub name: String,
    pub truncated: Option<String>,
    /// Why the file seems to be another model's side-car, if it does.
    pub foreign: Option<String>,
}

#[derive(Clone, Copy)]
pub struct Ui {
    pub status: RwSignal<String>,
    /// `starting`, `ready` or `error` (the status line shows only on an error).
    pub worker_state: RwSignal<&'static str>,
    pub ready: RwSignal<bool>,
    pub load: RwSignal<Load>,
    pub source: RwSignal<Source>,
    pub store: RwSignal<Option<StoreStatus>>,
    pub settings: RwSignal<PlanSettings>,
    pub planning: RwSignal<Planning>,
    pub query: RwSignal<RowQuery>,
    pub rows: RwSignal<Option<RowPage>>,
    pub provider: ProviderForm,
    pub confirm: RwSignal<bool>,
    pub running: RwSignal<Running>,
    pub import_confirm: RwSignal<Option<ImportQuestion>>,
    pub notice: RwSignal<Option<String>>,
    pub stores: RwSignal<Vec<StoreInfo>>,
    pub tour: RwSignal<Tour>,
    /// The last plan made for the loaded model (shown while a new one is made).
    pub last_plan: RwSignal<Option<PlanView>>,
    /// The provider's model list and a note (reading, none, an error), and
    /// which provider configuration it was asked for.
    pub models: RwSignal<(Vec<crate::protocol::ListedModel>, Option<String>)>,
    pub models_for: RwSignal<String>,
    /// Explain was pressed with a provider field missing: say it as an error.
    pub show_missing: RwSignal<bool>,
    /// When the run shown started (`Date.now()`), for the time remaining.
    pub run_started: RwSignal<f64>,
    /// The plan the running (or last) run was started from: its estimate.
    pub run_plan: RwSignal<Option<PlanView>>,
    /// Scope picker: ids offered for the text typed, and how many matched.
    pub suggestions: RwSignal<(Vec<String>, u64)>,
    pub tab: RwSignal<Tab>,
    pub nav: super::navigate::NavState,
    /// The Domain tab.
    pub domain: super::domain::DomainState,
    pub explore_question: RwSignal<String>,
    pub explore_mode: RwSignal<String>,
    pub explore_busy: RwSignal<bool>,
    pub explored: RwSignal<Option<crate::protocol::ExploreAnswer>>,
    /// Answers received so far (a test waits for the next one).
    pub explore_seq: RwSignal<u64>,
}

/// The page's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Explain,
    Navigate,
    Graph,
    Cycles,
    Explore,
    Domain,
}

impl Tab {
    /// In tab-strip order.
    pub const ALL: [Tab; 6] = [Tab::Explain, Tab::Navigate, Tab::Graph, Tab::Cycles, Tab::Explore, Tab::Domain];

    pub fn label(self) -> &'static str {
        match self {
            Tab::Explain => "Explain",
            Tab::Navigate => "Navigate",
            Tab::Graph => "Graph",
            Tab::Cycles => "Cycles",
            Tab::Explore => "Explore",
            Tab::Domain => "Domain",
        }
    }

    /// The tab button's id (`tab-explain`, …).
    pub fn tab_id(self) -> &'static str {
        match self {
            Tab::Explain => "tab-explain",
            Tab::Navigate => "tab-navigate",
            Tab::Graph => "tab-graph",
            Tab::Cycles => "tab-cycles",
            Tab::Explore => "tab-explore",
            Tab::Domain => "tab-domain",
        }
    }

    /// The id of the panel the tab shows (`panel-explain`, …).
    pub fn panel_id(self) -> &'static str {
        match self {
            Tab::Explain => "panel-explain",
            Tab::Navigate => "panel-navigate",
            Tab::Graph => "panel-graph",
            Tab::Cycles => "panel-cycles",
            Tab::Explore => "panel-explore",
            Tab::Domain => "panel-domain",
        }
    }
}

impl Ui {
    pub fn new() -> Ui {
        let provider = ProviderForm {
            kind: RwSignal::new("demo".into()),
            key: RwSignal::new(String::new()),
            account: RwSignal::new(String::new()),
            gateway: RwSignal::new(String::new()),
            base_url: RwSignal::new(String::new()),
            remember: RwSignal::new(false),
            price_in: RwSignal::new(String::new()),
            price_out: RwSignal::new(String::new()),
            concurrency: RwSignal::new("4".into()),
            max_tokens: RwSignal::new(String::new()),
            output_mode: RwSignal::new(llm::wire::DETECT.into()),
        };
        let ui = Ui {
            status: RwSignal::new("starting the worker…".into()),
            worker_state: RwSignal::new("starting"),
            ready: RwSignal::new(false),
            load: RwSignal::new(Load::Idle),
            source: RwSignal::new(Source::None),
            store: RwSignal::new(None),
            settings: RwSignal::new(PlanSettings::default()),
            planning: RwSignal::new(Planning::Idle),
            query: RwSignal::new(RowQuery { limit: PAGE, ..RowQuery::default() }),
            rows: RwSignal::new(None),
            provider,
            confirm: RwSignal::new(false),
            running: RwSignal::new(Running::Idle),
            import_confirm: RwSignal::new(None),
            notice: RwSignal::new(None),
            stores: RwSignal::new(Vec::new()),
            tour: RwSignal::new(Tour::Off),
            last_plan: RwSignal::new(None),
            models: RwSignal::new((Vec::new(), None)),
            models_for: RwSignal::new(String::new()),
            show_missing: RwSignal::new(false),
            run_started: RwSignal::new(0.0),
            run_plan: RwSignal::new(None),
            suggestions: RwSignal::new((Vec::new(), 0)),
            tab: RwSignal::new(Tab::Explain),
            nav: super::navigate::NavState::new(),
            domain: super::domain::DomainState::new(),
            explore_question: RwSignal::new(String::new()),
            explore_mode: RwSignal::new(super::explore::restore_mode()),
            explore_busy: RwSignal::new(false),
            explored: RwSignal::new(None),
            explore_seq: RwSignal::new(0),
        };
        super::run::restore_provider(&ui.provider);
        ui
    }

    /// Something is wrong with the Worker: the status line says what.
    pub fn worker_problem(&self, message: String) {
        self.status.set(message);
        self.worker_state.set("error");
    }

    pub fn is_running(&self) -> bool {
        self.running.with_untracked(|r| matches!(r, Running::Starting | Running::Going(_)))
    }

    /// [`Self::is_running`], tracked: for what a view disables while a run goes.
    pub fn running_now(&self) -> bool {
        self.running.with(|r| matches!(r, Running::Starting | Running::Going(_)))
    }

    /// A model is being read: what was shown of the last one goes (its
    /// plan, and the demo's tour: the demo starts its own afterwards).
    pub fn loading(&self) {
        self.tour.set(Tour::Off);
        self.last_plan.set(None);
        self.planning.set(Planning::Idle);
        self.rows.set(None);
        self.confirm.set(false);
    }

    /// Asks the Worker to plan with the current settings.
    pub fn plan(&self) {
        self.planning.set(Planning::Running);
        super::link::send(&ToWorker::Plan { settings: self.settings.get_untracked() });
    }

    /// Navigate, with `id` selected (the end of a run: "Open the results").
    pub fn open_results(&self, id: String) {
        self.tab.set(Tab::Navigate);
        self.nav.select(crate::protocol::NavTarget::Id(id));
    }

    /// Asks for the page of rows the query names.
    pub fn fetch_rows(&self) {
        super::link::send(&ToWorker::PlanRows { query: self.query.get_untracked() });
    }

    /// One message from the Worker.
    pub fn apply(&self, msg: FromWorker) {
        match msg {
            FromWorker::Ready { version, protocol } if protocol == PROTOCOL_VERSION => {
                self.status.set(format!("worker ready: {version}"));
                self.worker_state.set("ready");
                if !self.ready.get_untracked() {
                    self.ready.set(true);
                    super::load::from_address(*self);
                }
            }
            FromWorker::Ready { protocol, .. } => self.worker_problem(format!(
                "the worker speaks protocol {protocol} and the page {PROTOCOL_VERSION}: reload the page"
            )),
            FromWorker::Error { message } => self.notice.set(Some(message)),
            FromWorker::LoadProgress { input: crate::protocol::Input::Model, bytes, total } => {
                self.load.set(Load::Reading { bytes, total })
            }
            FromWorker::LoadProgress { input: crate::protocol::Input::Source, .. } => self.source.set(Source::Reading),
            FromWorker::ModelLoaded { summary } => {
                self.load.set(Load::Loaded(summary));
                super::navigate::model_loaded(*self);
                self.planning.set(Planning::Idle);
                self.rows.set(None);
                self.running.set(Running::Idle);
                super::load::send_pending_source();
            }
            FromWorker::ModelFailed { error } => {
                self.tour.set(Tour::Off);
                self.load.set(Load::Failed(error));
                self.planning.set(Planning::Idle);
                self.rows.set(None);
            }
            FromWorker::SourceLoaded { summary } => {
                self.source.set(Source::Loaded(summary));
                if matches!(self.planning.get_untracked(), Planning::Planned(_)) {
                    self.plan();
                }
            }
            FromWorker::SourceFailed { message } => {
                self.tour.set(Tour::Off);
                self.source.set(Source::Failed(message))
            }
            FromWorker::StoreOpened { store } => {
                let writable = store.read_only.is_none();
                if let Load::Loaded(m) = self.load.get_untracked() {
                    super::keep::remember_store_label(&store.name, &m.root, &m.name);
                }
                self.store.set(Some(store));
                // Every load plans at once with the current settings (and a
                // store that changed plans again: a run ended, an import).
                if !self.is_running() {
                    self.plan();
                }
                // The store's records changed (opened, a run ended, an
                // import): the selection shown asks for its explanation
                // again, so a shared `#id=` link or a unit selected before
                // the run shows what the store now holds.
                if let Some(id) = self.nav.selected.with_untracked(|s| s.as_ref().map(|(n, _, _)| n.id.clone())) {
                    self.nav.select(crate::protocol::NavTarget::Id(id));
                }
                if writable {
                    super::link::send(&ToWorker::ListStores);
                }
            }
            FromWorker::Planned { plan } => {
                self.last_plan.set(Some(plan.clone()));
                self.planning.set(Planning::Planned(plan));
                self.query.update(|q| q.offset = 0);
                self.fetch_rows();
                // The demo runs itself once planned with its source (free,
                // offline: the provider is forced to the demo).
                if self.tour.get_untracked() == Tour::Planning
                    && matches!(self.source.get_untracked(), Source::Loaded(_))
                    && !self.is_running()
                {
                    if self.provider.kind.get_untracked() == "demo" {
                        self.tour.set(Tour::Running);
                        super::run::start(*self, false);
                    } else {
                        self.tour.set(Tour::Off);
                    }
                }
            }
            FromWorker::PlanFailed { message } => {
                self.tour.set(Tour::Off);
                self.planning.set(Planning::Failed(message))
            }
            FromWorker::PlanRows { page } => self.rows.set(Some(page)),
            FromWorker::RunProgress { progress } => {
                self.running.set(Running::Going(progress));
                super::navigate::on_progress(*self);
            }
            FromWorker::RunFinished { report } => {
                let highlight = report.highlight.clone();
                self.running.set(Running::Finished(report));
                // A retry run is over: the next plan covers everything again
                // (shown in its checkbox; the store's reopening plans too).
                if self.settings.with_untracked(|s| s.retry_failed) {
                    self.settings.update(|s| s.retry_failed = false);
                }
                if self.tour.get_untracked() == Tour::Running {
                    self.tour.set(Tour::Off);
                    if let Some(id) = highlight {
                        self.open_results(id);
                    }
                }
            }
            FromWorker::RunFailed { message } => {
                self.tour.set(Tour::Off);
                self.running.set(Running::Failed(message))
            }
            FromWorker::Sidecar { file_name, text, records } => {
                super::link::download_text(&file_name, &text);
                self.notice.set(Some(format!("downloaded {file_name}: {records} records")));
            }
            FromWorker::ImportNeedsConfirm { held, incoming, name, truncated, foreign } => {
                self.import_confirm.set(Some(ImportQuestion { held, incoming, name, truncated, foreign }))
            }
            FromWorker::Imported { records, failures, merged } => self.notice.set(Some(if merged {
                format!("merged {records} records and {failures} failures into the store; nothing was removed")
            } else {
                format!("imported {records} records and {failures} failures")
            })),
            FromWorker::ImportFailed { message } => self.notice.set(Some(format!("nothing was imported: {message}"))),
            FromWorker::Stores { stores } => self.stores.set(stores),
            FromWorker::StoreFile { .. } => {}
            FromWorker::ModelPrices { model, prices, message } => match prices {
                Some(p) => {
                    self.provider.price_in.set(format!("{}", p.input));
                    self.provider.price_out.set(format!("{}", p.output));
                    self.notice.set(Some(format!(
                        "prices of {model} from the provider: ${} in, ${} out per million tokens",
                        p.input, p.output
                    )));
                }
                None => self.notice.set(message),
            },
            FromWorker::ProviderModels { provider, asked_for, models, message } => {
                // Only the answer to the list asked last (the provider or its URL may have changed since).
                if self.models_for.get_untracked() == asked_for
                    && self.provider.kind.get_untracked().starts_with(&provider)
                {
                    if models.is_empty() {
                        // Not kept: the next focus asks again (a key typed since, a server up since).
                        self.models_for.set(String::new());
                    }
                    let model = self.settings.get_untracked().model;
                    self.models.set((models, message));
                    // The default model's prices, when the list has them and none were typed.
                    if self.provider.price_in.get_untracked().trim().is_empty() {
                        super::run::prices_from_list(*self, &model);
                    }
                }
            }
            FromWorker::ScopeSuggestions { ids, matching, .. } => self.suggestions.set((ids, matching)),
            FromWorker::NavReady { .. }
            | FromWorker::NavRows { .. }
            | FromWorker::NavSearch { .. }
            | FromWorker::NavSelected { .. }
            | FromWorker::NavMissing { .. }
            | FromWorker::NavDeps { .. }
            | FromWorker::NavGraph { .. }
            | FromWorker::NavPreparing { .. }
            | FromWorker::CycleRows { .. }
            | FromWorker::TextHits { .. } => super::navigate::apply(*self, msg),
            FromWorker::Explored { answer } => {
                self.explore_busy.set(false);
                self.explore_seq.update(|n| *n += 1);
                self.explored.set(Some(answer));
            }
            FromWorker::Domain { shown } => self.domain.arrived(shown),
            // Its bytes travel beside it: `link` downloads it.
            FromWorker::DomainZip { .. } => {}
        }
    }
}

/// `12 345` (thousands grouped, whatever the locale), as the CLI prints them.
pub fn group(n: u64) -> String {
    insights::report::grouped(n)
}

/// Megabytes with one decimal.
pub fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
