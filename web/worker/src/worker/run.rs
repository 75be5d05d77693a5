//! Run: the completer (paused, stopped, calls in flight), provider prices, and the run through store::StoreRun.

use super::*;

/// The run's completer: holds new calls while paused and tracks calls in flight.
pub(super) struct Controlled<'c> {
    inner: &'c dyn Completer,
}

impl Completer for Controlled<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn output_mode(&self, model: &str) -> Option<String> {
        self.inner.output_mode(model)
    }

    fn complete(&self, req: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        Box::pin(async move {
            while PAUSED.with(Cell::get) && !STOPPING.with(Cell::get) {
                gloo_timers::future::TimeoutFuture::new(100).await;
            }
            if STOPPING.with(Cell::get) {
                // Stopped while it waited: never sent (a paused run's
                // parked calls are not released to the provider).
                return Err(CompletionError::withdrawn());
            }
            let unit = in_flight_label(&req.asking);
            IN_FLIGHT.with(|f| f.borrow_mut().push(unit.clone()));
            let answer = self.inner.complete(req).await;
            IN_FLIGHT.with(|f| {
                let mut f = f.borrow_mut();
                if let Some(i) = f.iter().position(|u| *u == unit) {
                    f.remove(i);
                }
            });
            answer
        })
    }
}

/// The provider's configuration from the page's fields (a typed value).
pub(super) fn provider_config(
    provider: &web::protocol::ProviderSettings,
) -> Result<Option<llm::ProviderConfig>, WorkerError> {
    provider.config().map_err(WorkerError::Refused)
}

/// The configuration a model-list read uses: OpenRouter's list is public,
/// so no key is needed (nor sent) for it.
fn list_config(provider: &web::protocol::ProviderSettings) -> Result<Option<llm::ProviderConfig>, WorkerError> {
    match provider {
        web::protocol::ProviderSettings::OpenRouter { .. } => Ok(Some(llm::ProviderConfig::openrouter(""))),
        other => provider_config(other),
    }
}

/// The provider's model list, for the page's model picker.
pub(super) async fn fetch_models(provider: &web::protocol::ProviderSettings, asked_for: String) -> FromWorker {
    let answer = |models: Vec<web::protocol::ListedModel>, message: Option<String>| FromWorker::ProviderModels {
        provider: provider.name().to_owned(),
        asked_for: asked_for.clone(),
        models,
        message,
    };
    let config = match list_config(provider) {
        Ok(Some(c)) => c,
        Ok(None) => return answer(Vec::new(), None),
        Err(e) => return answer(Vec::new(), Some(e.to_string())),
    };
    match llm::prices::model_list(&llm::DefaultTransport::default(), &config).await {
        Ok(list) if list.is_empty() => {
            answer(Vec::new(), Some("the provider lists no models: type the model's name".into()))
        }
        Ok(list) => answer(
            list.into_iter()
                .map(|m| web::protocol::ListedModel {
                    id: m.id,
                    prices: m.prices.map(|p| web::protocol::Prices { input: p.input, output: p.output }),
                })
                .collect(),
            None,
        ),
        Err(e) => answer(Vec::new(), Some(format!("cannot read the provider's model list: {e}"))),
    }
}

pub(super) async fn fetch_prices(provider: &web::protocol::ProviderSettings, model: &str) -> FromWorker {
    let answer = |prices: Option<web::protocol::Prices>, message: Option<String>| FromWorker::ModelPrices {
        model: model.to_owned(),
        prices,
        message,
    };
    let config = match list_config(provider) {
        Ok(Some(c)) => c,
        Ok(None) => return answer(Some(web::protocol::Prices { input: 0.0, output: 0.0 }), None),
        Err(e) => return answer(None, Some(e.to_string())),
    };
    match llm::prices::model_prices(&llm::DefaultTransport::default(), &config, model).await {
        Ok(Some(p)) => answer(Some(web::protocol::Prices { input: p.input, output: p.output }), None),
        Ok(None) => answer(None, Some(format!("the provider lists no prices for {model}: type them"))),
        Err(e) => answer(None, Some(format!("cannot read the provider's model list: {e}"))),
    }
}

/// The run's completer; the offline demo answers from `corpus`'s facts.
pub(super) fn completer<'c>(
    request: &RunRequest,
    corpus: &'c Corpus<'c>,
) -> Result<Box<dyn Completer + 'c>, WorkerError> {
    if let Some(missing) = request.provider.missing() {
        return Err(WorkerError::Refused(format!("the run needs {missing}")));
    }
    let mode = llm::OutputMode::parse_choice(&request.output_mode).map_err(WorkerError::Refused)?;
    Ok(match provider_config(&request.provider)? {
        Some(config) => Box::new(llm::client(config).with_mode_choice(mode).on_mode(|n| {
            OUTPUT_MODE.with(|m| {
                let mut m = m.borrow_mut();
                match n.refused {
                    Some((refused, e)) => {
                        *m =
                            Some(format!("{} ({refused} refused: {})", n.mode, llm::wire::first_chars(&e.message, 300)))
                    }
                    // A confirmation keeps the story of how the mode was reached.
                    None if m.as_deref().is_some_and(|note| note.starts_with(&format!("{} (", n.mode))) => {}
                    None => *m = Some(n.mode.to_string()),
                }
            });
        })),
        None => Box::new(llm::demo::DemoCompleter::new(corpus)),
    })
}

pub(super) async fn run(request: RunRequest) -> Result<(), WorkerError> {
    let store = current_store()?;
    let (model, name) = loaded()?;
    if STATE.with(|s| std::mem::replace(&mut s.borrow_mut().running, true)) {
        return Err("a run is already going".into());
    }
    PAUSED.with(|p| p.set(false));
    STOPPING.with(|s| s.set(false));
    IN_FLIGHT.with(|f| f.borrow_mut().clear());
    OUTPUT_MODE.with(|m| *m.borrow_mut() = None);
    let result = run_on(&request, &store, &model, &name).await;
    STATE.with(|s| s.borrow_mut().running = false);
    post(&FromWorker::StoreOpened { store: store_status(&store) });
    result
}

pub(super) async fn run_on(
    request: &RunRequest,
    store: &store::Store,
    model: &model::Model,
    name: &str,
) -> Result<(), WorkerError> {
    let started = now_ms();
    let corpus = Corpus::build(model, analyzer::view::View::all(), None).map_err(|e| format!("{name}: {e}"))?;
    let completer = completer(request, &corpus)?;
    let src = source();
    let empty = sources::MemorySources::default();
    let reader: &dyn SourceReader = src.as_deref().map_or(&empty, Source::reader);
    let settings = &request.settings;
    let slicer = SourceSlicer::new(reader, settings.max_lines);
    let options = planning::options(&corpus, settings, &failed_members(Some(store)))?;
    // The run's lifecycle is the engine's (store::StoreRun), as in the CLI.
    let mut run = store::StoreRun::begin(
        store,
        &store::Begin {
            corpus: &corpus,
            slicer: &slicer,
            options: &options,
            provider: Some(request.provider.name().to_owned()),
            model_path: name.to_owned(),
            pid: None,
            started_at: now_iso(),
        },
    )
    .map_err(|e| e.to_string())?;

    let walk = &corpus.walk;
    let plan = run.plan();
    let progress = RefCell::new(Progress::new(plan.steps.iter().map(|s| walk.units[s.unit].layer), request.prices));
    let last_post = Cell::new(0.0);
    let snapshot = |p: &Progress| {
        let in_flight = IN_FLIGHT.with(|f| f.borrow().clone());
        let mut s = p.snapshot(in_flight, PAUSED.with(Cell::get), STOPPING.with(Cell::get));
        s.output_mode = OUTPUT_MODE.with(|m| m.borrow().clone());
        s
    };
    post(&FromWorker::RunProgress { progress: snapshot(&progress.borrow()) });
    let on_step = |e: &StepEvent| {
        let layer = walk.unit_index(&e.unit_id).map_or(0, |i| walk.units[i].layer);
        let mut p = progress.borrow_mut();
        p.step(e, layer);
        // The unit is committed (the book's put returned) before this event.
        let now = now_ms();
        if now - last_post.get() >= PROGRESS_EVERY_MS || e.done == e.total {
            last_post.set(now);
            post(&FromWorker::RunProgress { progress: snapshot(&p) });
        }
    };
    let stop = || STOPPING.with(Cell::get);
    let controlled = Controlled { inner: completer.as_ref() };
    let result = run
        .execute(
            &corpus,
            &slicer,
            &options,
            store::Execute {
                completer: &controlled,
                concurrency: request.concurrency.max(1) as usize,
                max_tokens: request.max_tokens,
                on_step: &on_step,
                stop: Some(&stop),
            },
        )
        .await;
    let rescue = match run.finish(&result, now_iso()).map_err(|e| e.to_string())? {
        store::Ending::StoreRefused { rescue, .. } | store::Ending::Finished { rescue, .. } => rescue,
    };
    if let Some(text) = rescue {
        // Answers paid for that the store did not take (it refused a write —
        // the browser's storage quota, an I/O error — or a cycle was cut off
        // between its prompts) are handed to the user as a rescue side-car,
        // downloaded at once; importing it merges them.
        let file_name = sidecar_name().replace(".insights.jsonl", ".rescue.insights.jsonl");
        post(&FromWorker::Sidecar { file_name, text, records: result.unsaved.len() as u64 });
    }
    let records = store.count().map_err(|e| e.to_string())?;
    let mut report = progress.borrow().report(&result, records, now_ms() - started);
    report.highlight = walk
        .types_by_calls()
        .into_iter()
        .take(64)
        .map(|i| &walk.units[i].id)
        .find(|id| store.get(&[id.as_str()]).is_ok_and(|r| !r.is_empty()))
        .cloned();
    post(&FromWorker::RunFinished { report });
    Ok(())
}
