//! openHarness's own hooks (docs/config.md), the native dialect: `.oh/hooks.yaml` and the layers
//! the options name, always read (no option turns them on or off). Their pure parts live here as
//! the other dialects' do in their folders; the files are parsed by `config/openharness.rs`, and
//! the engine runs them as the first step of each layer kind (docs/config.md "Merging"). They are
//! not in [`super::REGISTRY`]: their traces carry no `dialect`, and no option names them.
//!
//! - [`answer`]: reading one answer: exit codes, jsonIO keys, `strict`, the legacy HTTP verdict (pure).
//! - [`merge`]: openHarness's precedence, one hook's answer made one step of the walk (pure).

pub mod answer;
pub mod merge;
