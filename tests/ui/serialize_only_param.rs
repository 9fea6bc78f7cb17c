#[derive(serde::Serialize)]
pub struct Config {
    pub depth: u8,
}

#[carve::target]
pub fn depth(config: &Config) -> u8 {
    config.depth
}

fn main() {}
