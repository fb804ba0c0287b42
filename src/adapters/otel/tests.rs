//! OTel adapter tests.
