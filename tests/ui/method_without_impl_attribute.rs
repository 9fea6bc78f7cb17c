#[derive(serde::Serialize, serde::Deserialize)]
pub struct Account {
    balance: u64,
}

impl Account {
    #[carve::target]
    pub fn balance(&self) -> u64 {
        self.balance
    }

    #[carve::target]
    pub fn open(balance: u64) -> Self {
        Account { balance }
    }
}

fn main() {}
