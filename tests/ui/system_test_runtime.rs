// `runtime = "tokio"` is for an `async` system test.
#[carve::system_test(runtime = "tokio")]
fn not_async() {}

#[carve::system_test(threads = 2)]
async fn unknown_argument() {}

fn main() {}
