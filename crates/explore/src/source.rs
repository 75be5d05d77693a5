//! Source excerpts for the `snippets` and `source` modes: the anchor lines of
//! each listed symbol, read through the [`SourceReader`] port, cut to the
//! first lines (snippets) or to the character budget (source). What is not
//! shown is said, with the reason; nothing claims lines that are not there.

use analyzer::CodeGraph;
use hashbrown::HashMap;
use sources::{SourceFile, SourceReader};

use crate::index::{Class, ExploreIndex};
use crate::map::{Caps, Cut, Excerpt, NotShown, SourceSection};
use crate::query::Mode;

/// Characters an excerpt costs beyond its lines (header, fence, marker).
const EXCERPT_OVERHEAD: usize = 120;
/// Below this much room, an excerpt is left out rather than cut.
const MIN_CUT_ROOM: usize = 600;

/// Width of the line-number column of an excerpt line (`123\t`).
fn number_width(line: u32) -> usize {
    line.to_string().len() + 1
}

pub(crate) fn excerpts(
    graph: &CodeGraph<'_>,
    index: &ExploreIndex,
    sources: &dyn SourceReader,
    listed: &[(u32, String)],
    mode: Mode,
    caps: &Caps,
) -> SourceSection {
    let mut section = SourceSection { budget: caps.source_chars, ..SourceSection::default() };
    let mut files: HashMap<u32, SourceFile> = HashMap::new();
    let mut room = caps.source_chars;
    for (entity, name) in listed {
        if index.class(*entity) == Some(Class::Module) {
            continue;
        }
        let Some(anchor) = graph.entity(*entity).anchor() else { continue };
        let path = graph.file(anchor.file).to_string();
        // Already on screen inside an earlier excerpt.
        if let Some(x) =
            section.excerpts.iter_mut().find(|x| x.file == path && x.start <= anchor.start && anchor.end <= x.shown_end)
        {
            x.names.push(name.clone());
            continue;
        }
        let not_shown = |reason: String| NotShown {
            name: name.clone(),
            file: path.clone(),
            start: anchor.start,
            end: anchor.end,
            reason,
        };
        let file = files.entry(anchor.file).or_insert_with(|| sources.read(&path));
        let text = match file {
            SourceFile::Text(t) => t.clone(),
            SourceFile::Missing => {
                section.not_shown.push(not_shown("the file is not in the loaded source".into()));
                continue;
            }
            SourceFile::Binary => {
                section.not_shown.push(not_shown("the file is not text".into()));
                continue;
            }
            SourceFile::Rejected(why) => {
                section.not_shown.push(not_shown(format!("the path was not read: {why}")));
                continue;
            }
        };
        let lines: Vec<&str> = text.lines().collect();
        if anchor.start == 0 || anchor.end as usize > lines.len() {
            section.not_shown.push(not_shown(format!(
                "the file has {}, not the {} the model expects: it changed since the model was extracted",
                crate::text::plural(lines.len(), "line", "lines"),
                anchor.end
            )));
            continue;
        }
        let body = &lines[anchor.start as usize - 1..anchor.end as usize];
        let mut shown = body.len();
        let mut cut = None;
        if mode == Mode::Snippets && shown > caps.snippet_lines {
            shown = caps.snippet_lines;
            cut = Some(Cut::Snippet);
        }
        let cost = |n: usize| {
            EXCERPT_OVERHEAD
                + body[..n]
                    .iter()
                    .enumerate()
                    .map(|(k, l)| l.chars().count() + 1 + number_width(anchor.start + k as u32))
                    .sum::<usize>()
        };
        if cost(shown) > room {
            if room < MIN_CUT_ROOM {
                section
                    .not_shown
                    .push(not_shown(format!("left out to keep the source within {} characters", caps.source_chars)));
                continue;
            }
            while shown > 1 && cost(shown) > room {
                shown -= 1;
            }
            cut = Some(Cut::Budget);
        }
        room = room.saturating_sub(cost(shown));
        section.excerpts.push(Excerpt {
            file: path,
            start: anchor.start,
            end: anchor.end,
            shown_end: anchor.start + shown as u32 - 1,
            names: vec![name.clone()],
            text: body[..shown].join("\n"),
            omitted_lines: body.len() - shown,
            cut,
        });
    }
    section
}
