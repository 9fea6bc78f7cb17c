// The file of `mod helpers;` in `instrument_file_module.rs` (in a folder, so
// that the `tests/ui/*.rs` glob does not take it for a test).
pub fn double(x: u32) -> u32 {
    x * 2
}
