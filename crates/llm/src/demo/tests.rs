//! The demo's answers on the demo corpus (`fixtures/demo`), word for word:
//! a fact dropped or invented changes a string below.

use super::*;
use analyzer::view::View;
use futures::executor::block_on;
use insights::schema::{block_schema, block_schema_name, cycle_schema, cycle_schema_name};
use insights::validate::{validate_block, validate_cycle};

const DEMO: &str = include_str!("../../../../fixtures/demo/model.jsonl");

fn demo_model() -> model::Model {
    model::read_model(DEMO.as_bytes(), "model.jsonl").unwrap()
}

fn request(level: Level, unit: &str, cycle: Option<&[&str]>) -> CompletionRequest {
    let (schema_name, json_schema) = match cycle {
        Some(ids) => (cycle_schema_name(level), cycle_schema(level, ids)),
        None => (block_schema_name(level), block_schema(level)),
    };
    CompletionRequest {
        asking: Asking {
            unit: unit.into(),
            level,
            members: cycle.map_or_else(|| vec![unit.to_owned()], |ids| ids.iter().map(|s| s.to_string()).collect()),
            cycle: cycle.is_some(),
        },
        model: "openai/gpt-5.6-luna".into(),
        system: "sys".into(),
        // The text is never read: nothing in it names the unit.
        user: "(prompt text)".into(),
        schema_name,
        schema: json_schema,
        max_tokens: None,
    }
}

/// The validated block the demo answers for one member.
fn answer(demo: &DemoCompleter<'_>, level: Level, id: &str) -> Block {
    let c = block_on(demo.complete(request(level, id, None))).unwrap();
    assert_eq!(c.model, DEMO_MODEL);
    assert_eq!(c.usage, None);
    validate_block(level, &c.json).unwrap_or_else(|e| panic!("{id}: {e:?}"))
}

const SETTLE: &str = "java:com.pedalpoint.billing/BillingService.settle(com.pedalpoint.billing.Invoice)";
const FINISH: &str = "java:com.pedalpoint.rental/RentalService.finish(java.lang.String,java.lang.String,long)";

#[test]
fn an_operation_names_its_callees_callers_fields_and_throws() {
    let m = demo_model();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let demo = DemoCompleter::new(&corpus);
    let Block::Operation(settle) = answer(&demo, Level::Operation, SETTLE) else { panic!("an operation block") };
    assert_eq!(settle.name, "settle");
    assert_eq!(
        settle.description,
        "Written from the code's facts, not by an LLM: The method `settle` of `BillingService` calls \
         `Invoice.getCustomerName`, `Invoice.total`, `PaymentGateway.charge` and `Invoice.markPaid`; it is called by \
         `PedalPointShop.takeBack`. It reads the field `gateway`. `BillingService` is a class in the module \
         `com.pedalpoint.billing`."
    );
    assert!(!settle.safe, "it calls others");
    assert_eq!(settle.owner, OperationOwner::Unknown);
    assert_eq!(settle.confidence, DEMO_CONFIDENCE);

    let Block::Operation(finish) = answer(&demo, Level::Operation, FINISH) else { panic!("an operation block") };
    assert_eq!(
        finish.description,
        "Written from the code's facts, not by an LLM: The method `finish` of `RentalService` calls \
         `new RentalException`, `Rental.finish`, `Fleet.station`, `Station.dock` and `Rental.getBike`, and calls \
         into `Map` outside the code base; it is called by `PedalPointShop.takeBack`. It reads the fields `open` and \
         `fleet`. It throws `RentalException`. `RentalService` is a class in the module `com.pedalpoint.rental`."
    );

    // Writes, a constructor, and a method only reached through its interface.
    let start = answer(&demo, Level::Operation, "java:com.pedalpoint.rental/Rental.start(long)");
    assert_eq!(
        start.description(),
        "Written from the code's facts, not by an LLM: The method `start` of `Rental` calls `Rental.moveTo` and \
         `Bike.assignTo`; it is called by `RentalService.start`. It reads the fields `Status.ACTIVE` and `bike` and \
         writes the field `startedAt`. `Rental` is a class in the module `com.pedalpoint.rental`."
    );
    let terminal = answer(&demo, Level::Operation, "java:com.pedalpoint.billing/CardTerminal.<init>()");
    assert_eq!(terminal.name(), "CardTerminal");
    assert!(terminal
        .description()
        .contains("The constructor of `CardTerminal` calls `Money.ofCents`; it is called by `new PedalPointShop`."));
    // Read-only when the model records no write and no call.
    let Block::Operation(exceeds) =
        answer(&demo, Level::Operation, "java:com.pedalpoint.common/Money.exceeds(com.pedalpoint.common.Money)")
    else {
        panic!("an operation block")
    };
    assert_eq!(
        exceeds.description,
        "Written from the code's facts, not by an LLM: The method `exceeds` of `Money` makes no call the model \
         records; it is called by `CardTerminal.charge` and `HourlyPricing.quote`. It reads the field `cents`. \
         `Money` is a class in the module `com.pedalpoint.common`."
    );
    assert!(exceeds.safe);
    let quote = answer(&demo, Level::Operation, "java:com.pedalpoint.billing/DayPassPricing.quote(long)");
    assert!(quote.description().contains(
        "The method `quote` of `DayPassPricing` calls `Money.times`, and calls into `Math` outside the code base; \
         no operation of the model calls it directly."
    ));
}

#[test]
fn a_type_names_its_kind_fields_operations_and_dependencies() {
    let m = demo_model();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let demo = DemoCompleter::new(&corpus);
    let Block::Type(line) = answer(&demo, Level::Type, "java:com.pedalpoint.billing/Invoice.Line") else {
        panic!("a type block")
    };
    assert_eq!(line.name, "Line");
    assert_eq!(
        line.description,
        "Written from the code's facts, not by an LLM: `Line` is a class in the module `com.pedalpoint.billing`. Its \
         fields are `amount: Money` and `text: String`. Its methods are `getAmount` and `getText`; it has 1 \
         constructor. Within the code base it depends on `Money`; `Invoice` depends on it."
    );
    let fields: Vec<(&str, &str, FieldKind)> =
        line.fields.iter().map(|f| (f.name.as_str(), f.type_.as_str(), f.kind)).collect();
    assert_eq!(fields, [("amount", "Money", FieldKind::Unknown), ("text", "String", FieldKind::Unknown)]);
    // What the facts cannot tell stays unknown.
    assert_eq!(line.concept, DomainConcept::Unknown);
    assert_eq!((line.interface_role, line.aggregate_root, line.identity.as_deref()), (None, None, None));
    assert!(line.exposes.is_empty() && line.invariants.is_empty() && line.relates_to.is_empty());
    assert_eq!(line.confidence, DEMO_CONFIDENCE);

    let card = answer(&demo, Level::Type, "java:com.pedalpoint.billing/CardTerminal");
    assert_eq!(
        card.description(),
        "Written from the code's facts, not by an LLM: `CardTerminal` is a class in the module \
         `com.pedalpoint.billing` that implements `PaymentGateway`. Its fields are `LIMIT_CENTS`, `limit: Money` and \
         `references: Ids`. Its method is `charge`; it has 1 constructor. Within the code base it depends on \
         `PaymentDeclinedException`, `PaymentGateway`, `Ids` and `Money`; `PedalPointShop` depends on it."
    );
    let policy = answer(&demo, Level::Type, "java:com.pedalpoint.billing/PricingPolicy");
    assert!(policy.description().contains(
        "`PricingPolicy` is an interface in the module `com.pedalpoint.billing`. The model records no field of it. \
         Its methods are `describe` and `quote`."
    ));
    // An enum-typed field is classified as one.
    let Block::Type(bike) = answer(&demo, Level::Type, "java:com.pedalpoint.fleet/Bike") else { panic!() };
    assert!(bike.fields.iter().any(|f| f.name == "type" && f.type_ == "BikeType" && f.kind == FieldKind::Enum));
}

#[test]
fn a_module_names_its_types_and_its_dependencies_both_ways() {
    let m = demo_model();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let demo = DemoCompleter::new(&corpus);
    let Block::Module(common) = answer(&demo, Level::Module, "java:com.pedalpoint.common") else {
        panic!("a module block")
    };
    assert_eq!(common.name, "com.pedalpoint.common");
    assert_eq!(
        common.description,
        "Written from the code's facts, not by an LLM: The module `com.pedalpoint.common` holds 3 types: `Audited`, \
         `Ids` and `Money`. It imports only from outside the code base: `java.lang.annotation` and `java.util`. The \
         modules `com.pedalpoint`, `com.pedalpoint.billing` and `com.pedalpoint.rental` import from it."
    );
    assert_eq!(common.depends_on, ["java.lang.annotation", "java.util"]);
    let top = answer(&demo, Level::Module, "java:com.pedalpoint");
    assert_eq!(
        top.description(),
        "Written from the code's facts, not by an LLM: The module `com.pedalpoint` holds 2 types: `PedalPointShop` \
         and `ShopSettings`. It imports from `com.pedalpoint.billing`, `com.pedalpoint.common`, \
         `com.pedalpoint.fleet` and `com.pedalpoint.rental`. No other module of the model imports from it."
    );
}

#[test]
fn a_cycle_answers_every_member_with_the_others_named() {
    let m = demo_model();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let demo = DemoCompleter::new(&corpus);
    let ids = ["java:com.pedalpoint.fleet/Bike", "java:com.pedalpoint.rental/Rental"];
    let c = block_on(demo.complete(request(Level::Type, ids[0], Some(&ids)))).unwrap();
    let members = validate_cycle(Level::Type, &ids, &c.json).unwrap();
    assert_eq!(members.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ids);
    assert_eq!(members[0].1.name(), "Bike");
    assert!(members[0].1.description().ends_with(" It is in a dependency cycle with `Rental`."));
    assert!(members[1].1.description().ends_with(" It is in a dependency cycle with `Bike`."));
    let ids = ["java:com.pedalpoint.fleet", "java:com.pedalpoint.rental"];
    let c = block_on(demo.complete(request(Level::Module, ids[0], Some(&ids)))).unwrap();
    let members = validate_cycle(Level::Module, &ids, &c.json).unwrap();
    assert!(members[1].1.description().ends_with(" It is in a dependency cycle with `com.pedalpoint.fleet`."));
}

#[test]
fn an_id_without_facts_is_said_so_and_still_validates() {
    let m = demo_model();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let demo = DemoCompleter::new(&corpus);
    for (level, id, name) in [
        (Level::Operation, "java:com.acme.order/Basket#add(com.acme.Item, int)", "add"),
        (Level::Type, "java:com.acme.order/Basket.Cursor", "Basket.Cursor"),
        (Level::Module, "java:com.acme.order", "com.acme.order"),
        // Asked at the wrong level, a known id has no facts of that level either.
        (Level::Module, SETTLE, "BillingService.settle(com.pedalpoint.billing.Invoice)"),
    ] {
        let b = answer(&demo, level, id);
        assert_eq!(b.name(), name);
        assert_eq!(
            b.description(),
            format!(
                "{DEMO_LABEL} The model given to the demo holds no facts of the {} `{id}`. Nothing more can be said \
                 of it offline.",
                level.as_str()
            )
        );
    }
}

#[test]
fn placeholders_validate_and_say_they_are_placeholders() {
    for (level, id) in [
        (Level::Operation, "java:com.acme.order/Basket#add(com.acme.Item, int)"),
        (Level::Type, "java:com.acme.order/Basket.Cursor"),
        (Level::Module, "java:com.acme.order"),
    ] {
        let block = validate_block(level, &placeholder_answer(&request(level, id, None).asking)).unwrap();
        assert!(block.description().starts_with(PLACEHOLDER_MARK), "{}", block.description());
        assert!(block.description().contains(id));
        assert_eq!(block.confidence(), 0.0);
    }
    let ids = ["a#f()", "a#g(int, long)"];
    for level in [Level::Operation, Level::Type, Level::Module] {
        let asking = request(level, ids[0], Some(&ids)).asking;
        assert!(validate_cycle(level, &ids, &placeholder_answer(&asking)).is_ok());
    }
}

#[test]
fn names_from_ids() {
    assert_eq!(name_of("java:p/C#m(int)"), "m");
    assert_eq!(name_of("java:p/C"), "C");
    assert_eq!(name_of("plain"), "plain");
}

#[test]
fn lists_are_joined_and_capped() {
    let items: Vec<String> = (1..=8).map(|i| format!("`{i}`")).collect();
    assert_eq!(names(&items[..1]), "`1`");
    assert_eq!(names(&items[..3]), "`1`, `2` and `3`");
    assert_eq!(names(&items[..MAX_LISTED]), "`1`, `2`, `3`, `4`, `5` and `6`");
    assert_eq!(names(&items), "`1`, `2`, `3`, `4`, `5`, `6` and 2 more");
}
