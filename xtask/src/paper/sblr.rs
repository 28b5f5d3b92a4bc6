//! Numbers and statements printed in the paper (filled in per experiment).
