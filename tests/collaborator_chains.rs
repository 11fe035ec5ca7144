//! Chains of stored collaborators (src/semantic/link/property_reads.rs `stored_chain_classes`,
//! src/semantic/link/resolve.rs `chained_attribute_call`): `self.attn.cache.size` and
//! `self.attn.cache.positions()` reach the cache's getter and method, each hop's class the one
//! the holder stored (built in `__init__`, an annotated constructor parameter, or stored by a
//! project base in another method).
//! corpus/reach/collaborator_chains; tests/python/test_collaborator_reach_proofs.py shows
//! Dynamo (torch 2.11, backend="eager") breaks at exactly these lines.

mod common;

use std::path::{Path, PathBuf};

use common::{graphbreak, stdout};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach/collaborator_chains")
}

fn reported(roots: &str) -> Vec<String> {
    let text = stdout(&graphbreak(&fixture(), &["scan", ".", "--roots", roots]));
    let mut rows: Vec<String> = text
        .lines()
        .filter(|line| line.starts_with("pkg/"))
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            Some(format!("{}:{}", parts.next()?, parts.next()?))
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_property_read_two_hops_from_self_reaches_the_getter() {
    assert_eq!(reported("pkg.model.ReadsThroughChain"), ["pkg/cache.py:15"]);
}

#[test]
fn a_method_call_two_hops_from_self_reaches_the_method() {
    assert_eq!(reported("pkg.model.CallsThroughChain"), ["pkg/cache.py:18"]);
}

#[test]
fn an_attribute_a_project_base_stored_outside_init_is_typed() {
    assert_eq!(
        reported("pkg.model.ReadsWhatABaseStored"),
        ["pkg/cache.py:15"]
    );
}

#[test]
fn the_same_names_on_a_class_no_chain_stores_are_not_reached() {
    let reached = stdout(&graphbreak(
        &fixture(),
        &["scan", ".", "--roots", "pkg.model.*", "--show-reached"],
    ));
    assert!(reached.contains("pkg.cache.Cache.size"), "{reached}");
    assert!(reached.contains("pkg.cache.Cache.positions"), "{reached}");
    assert!(!reached.contains("pkg.cache.Unused"), "{reached}");
}
