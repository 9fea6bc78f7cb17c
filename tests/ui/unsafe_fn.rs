/// # Safety
/// `p` points to a readable byte.
#[carve::target]
pub unsafe fn peek(p: usize) -> u8 {
    unsafe { *(p as *const u8) }
}

fn main() {}
