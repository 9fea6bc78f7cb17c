//! What several benches share (a folder, so cargo does not take it for a
//! bench of its own).

use std::path::Path;

use carve::_internals::call::ArgsInput;
use carve::_internals::carving::store::CarveFile;
use carve::_internals::registry::Target;
use carve::_internals::value::Value;

/// The arguments of the dogfood's carved `cgi::cgi_decode` calls, rebuilt
/// as replay rebuilds them: the seeds `CARVE=generate` starts from.
pub fn carved_cgi_decode_seeds(target: &Target) -> Vec<Value> {
    let carved_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("carved");
    let decode = CarveFile::load(
        &carved_dir,
        &CarveFile::path_for(&carved_dir, "cgi::cgi_decode"),
    )
    .expect("dogfood carve files are committed");
    decode
        .entries
        .iter()
        .filter_map(|e| {
            let (Ok(replayed), _) = carve::_internals::coverage::collect(|| {
                carve::_internals::outcome::quietly(|| (target.replay)(ArgsInput::Ron(&e.args)))
            }) else {
                return None;
            };
            replayed.args
        })
        .collect()
}
