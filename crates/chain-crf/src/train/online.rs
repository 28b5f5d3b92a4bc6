//! Shared parts of the online trainers (being written).
