//! Every limit of the flow document, named once and used by both the validator and the schema.
//!
//! Lengths count Unicode scalar values (`str::chars`), as JSON Schema's `minLength`/`maxLength`
//! do. Patterns are written in the common subset of ECMA-262 and Rust regular expressions, so the
//! generated JSON Schema and the hand-written checks in `validate` mean the same thing. The
//! lengths inside the patterns come from the `MAX_*` constants, which `validate` uses: a test
//! below fails, naming the pattern to write, when the two drift apart.

/// The current flow document version.
pub const CURRENT_VERSION: u64 = 2;

/// Flow ids (`id`, `subflow.flow`).
pub const FLOW_ID_PATTERN: &str = "^[a-z][a-z0-9_-]{0,63}$";
/// Step ids (`steps[].id` and every reference to a step).
pub const STEP_ID_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_-]{0,63}$";
/// Variable names (`variables` keys, `ask.save`, `set.var`, `action.save`, condition `var`).
pub const VARIABLE_NAME_PATTERN: &str = "^[a-z_][a-z0-9_]{0,63}$";
/// `metadata.locale` (BCP 47 shape).
pub const LOCALE_PATTERN: &str = "^[a-z]{2,3}(-[A-Z]{2})?$";
/// `template.name`.
pub const TEMPLATE_NAME_PATTERN: &str = "^[a-z0-9_]{1,512}$";
/// `template.language`.
pub const TEMPLATE_LANGUAGE_PATTERN: &str = "^[a-z]{2,3}(_[A-Z]{2})?$";
/// `action.handler`.
pub const HANDLER_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_.]{0,127}$";
/// `media.url`: `https://` followed by at least one character that is neither Unicode white
/// space nor a control character.
pub const URL_PATTERN: &str = "^https://[^\\x00-\\x20\\x7F-\\x9F\u{a0}\u{1680}\u{2000}-\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}]+$";

/// Maximum length of a flow id.
pub const MAX_FLOW_ID: usize = 64;
/// Maximum length of a step id.
pub const MAX_STEP_ID: usize = 64;
/// Maximum length of a variable name.
pub const MAX_VARIABLE_NAME: usize = 64;
/// Maximum length of `template.name`.
pub const MAX_TEMPLATE_NAME: usize = 512;
/// Maximum length of `action.handler`.
pub const MAX_HANDLER: usize = 128;

/// Minimum number of steps.
pub const MIN_STEPS: usize = 1;
/// Maximum number of steps.
pub const MAX_STEPS: usize = 500;
/// Maximum number of declared variables.
pub const MAX_VARIABLES: usize = 100;

/// Maximum length of `metadata.title`.
pub const MAX_METADATA_TITLE: usize = 120;
/// Maximum length of `metadata.description`.
pub const MAX_METADATA_DESCRIPTION: usize = 1000;
/// Maximum number of `metadata.tags`.
pub const MAX_TAGS: usize = 20;
/// Maximum length of one tag.
pub const MAX_TAG: usize = 40;
/// Minimum number of `trigger.keywords` (when present).
pub const MIN_KEYWORDS: usize = 1;
/// Maximum number of `trigger.keywords`.
pub const MAX_KEYWORDS: usize = 50;
/// Maximum length of one keyword.
pub const MAX_KEYWORD: usize = 100;
/// Maximum length of a variable's `description`.
pub const MAX_VARIABLE_DESCRIPTION: usize = 200;

/// Maximum length of `message.text`, `list.text`, `ask.text` and `end.text`.
pub const MAX_TEXT: usize = 4096;
/// Maximum length of `media.url`.
pub const MAX_URL: usize = 2048;
/// Maximum length of `media.caption`.
pub const MAX_CAPTION: usize = 1024;
/// Maximum length of `media.filename`.
pub const MAX_FILENAME: usize = 240;

/// Maximum length of `buttons.text`, `ask.retryText` and `handoff.text`.
pub const MAX_SHORT_TEXT: usize = 1024;
/// Maximum number of buttons in a `buttons` step.
pub const MAX_BUTTONS: usize = 3;
/// Maximum length of a button's `id`.
pub const MAX_BUTTON_ID: usize = 256;
/// Maximum length of a button's `title`.
pub const MAX_BUTTON_TITLE: usize = 20;
/// Maximum length of `header` and `footer` (buttons and list steps).
pub const MAX_HEADER: usize = 60;

/// Maximum length of `list.button` (the label that opens the list).
pub const MAX_LIST_BUTTON: usize = 20;
/// Maximum number of sections in a list.
pub const MAX_SECTIONS: usize = 10;
/// Maximum length of a section's `title`.
pub const MAX_SECTION_TITLE: usize = 24;
/// Maximum number of rows in one section.
pub const MAX_SECTION_ROWS: usize = 10;
/// Maximum number of rows in all sections of one list together.
pub const MAX_LIST_ROWS: usize = 10;
/// Maximum length of a row's `id`.
pub const MAX_ROW_ID: usize = 200;
/// Maximum length of a row's `title`.
pub const MAX_ROW_TITLE: usize = 24;
/// Maximum length of a row's `description`.
pub const MAX_ROW_DESCRIPTION: usize = 72;

/// Maximum number of template `parameters`.
pub const MAX_TEMPLATE_PARAMETERS: usize = 20;
/// Maximum length of one template parameter.
pub const MAX_TEMPLATE_PARAMETER: usize = 1024;

/// Largest absolute `latitude`.
pub const MAX_LATITUDE: f64 = 90.0;
/// Largest absolute `longitude`.
pub const MAX_LONGITUDE: f64 = 180.0;
/// Maximum length of a location's `name`.
pub const MAX_LOCATION_NAME: usize = 100;
/// Maximum length of a location's `address`.
pub const MAX_LOCATION_ADDRESS: usize = 300;

/// Maximum `ask.retries`.
pub const MAX_RETRIES: u64 = 5;
/// `ask.retries` when absent.
pub const DEFAULT_RETRIES: u64 = 2;

/// Maximum number of `branch.cases`.
pub const MAX_CASES: usize = 20;
/// Maximum number of children of an `all` or `any` condition.
pub const MAX_CONDITION_CHILDREN: usize = 10;
/// Maximum nesting of conditions (a leaf is depth 1; each `all`/`any`/`not` adds one).
pub const MAX_CONDITION_DEPTH: usize = 8;
/// Maximum number of values of an `in` condition.
pub const MAX_IN_VALUES: usize = 50;

/// Minimum `delay.seconds`.
pub const MIN_DELAY_SECONDS: u64 = 1;
/// Maximum `delay.seconds` (one day).
pub const MAX_DELAY_SECONDS: u64 = 86_400;

/// Maximum nesting of `action.args` (the `args` object itself is level 1; each object or array
/// inside it adds one).
pub const MAX_ARGS_DEPTH: usize = 32;

/// Maximum length of `handoff.queue`.
pub const MAX_QUEUE: usize = 64;

/// Variables every flow may read and none may write.
pub const BUILT_IN_VARIABLES: [&str; 4] =
    ["contact_name", "contact_phone", "last_message", "flow_id"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_spell_the_length_limits() {
        let rest = |max: usize| max - 1;
        assert_eq!(
            FLOW_ID_PATTERN,
            format!("^[a-z][a-z0-9_-]{{0,{}}}$", rest(MAX_FLOW_ID))
        );
        assert_eq!(
            STEP_ID_PATTERN,
            format!("^[A-Za-z][A-Za-z0-9_-]{{0,{}}}$", rest(MAX_STEP_ID))
        );
        assert_eq!(
            VARIABLE_NAME_PATTERN,
            format!("^[a-z_][a-z0-9_]{{0,{}}}$", rest(MAX_VARIABLE_NAME))
        );
        assert_eq!(
            TEMPLATE_NAME_PATTERN,
            format!("^[a-z0-9_]{{1,{MAX_TEMPLATE_NAME}}}$")
        );
        assert_eq!(
            HANDLER_PATTERN,
            format!("^[A-Za-z][A-Za-z0-9_.]{{0,{}}}$", rest(MAX_HANDLER))
        );
    }
}
