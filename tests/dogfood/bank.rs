//! An account with methods, to carve receivers and `&mut self`.

use serde::{Deserialize, Serialize};

/// A bank account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// Who owns it.
    pub owner: String,
    /// Balance in cents.
    pub balance: u64,
}

/// Why an operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum BankError {
    /// Not enough money.
    Insufficient {
        /// What was asked.
        wanted: u64,
        /// What there is.
        available: u64,
    },
}

#[carve::target]
impl Account {
    /// A new, empty account.
    pub fn open(owner: &str) -> Account {
        Account {
            owner: owner.to_owned(),
            balance: 0,
        }
    }

    /// Adds `amount`, returning the new balance.
    pub fn deposit(&mut self, amount: u64) -> u64 {
        self.balance = self.balance.saturating_add(amount);
        self.balance
    }

    /// Takes `amount` out, returning the new balance.
    pub fn withdraw(&mut self, amount: u64) -> Result<u64, BankError> {
        if amount > self.balance {
            return Err(BankError::Insufficient {
                wanted: amount,
                available: self.balance,
            });
        }
        self.balance -= amount;
        Ok(self.balance)
    }

    /// Closes the account; it must be empty.
    pub fn close(self) -> String {
        assert_eq!(self.balance, 0, "cannot close an account that holds money");
        format!("closed account of {}", self.owner)
    }

    /// Not carved: not public.
    fn _audit(&self) -> bool {
        true
    }
}
