//! Build script: names the commit the binary is built from, for `--version`,
//! and links it at a fixed address where that saves start-up work.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let commit = commit(&manifest_dir).unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=PGNKIT_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    link_at_a_fixed_address();
}

/// Links the binary as a position-dependent executable on Linux with
/// glibc, unless `PGNKIT_PIE` is set (to anything but `0`): a
/// position-independent one has the loader relocate some 18,000 pointers
/// in its tables (clap's, regex's Unicode tables) before `main`, a sixth
/// of a one-shot `pgnkit moves`. The price is that the binary's own code
/// and data are at the same address in every run (the libraries, the heap
/// and the stacks are still placed at random). Only the link changes: the
/// code is compiled as before.
fn link_at_a_fixed_address() {
    println!("cargo:rerun-if-env-changed=PGNKIT_PIE");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let pie = std::env::var_os("PGNKIT_PIE").is_some_and(|value| value != "0");
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && !pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

/// The short hash of HEAD, when the package is the top of a git checkout
/// and git runs. An unpacked crate (`cargo package`'s check builds one
/// inside target/) lies inside another checkout: that checkout's commit is
/// not the one the sources came from, so it is not named.
fn commit(manifest_dir: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).current_dir(manifest_dir).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        out.status.success().then(|| text.trim().to_owned())
    };
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != manifest_dir.canonicalize().ok()? {
        return None;
    }
    // Rerun when HEAD moves: a checkout changes HEAD, a commit changes the
    // branch's ref, which lives in packed-refs once git has packed it (a
    // missing file would make cargo rerun this script on every build).
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])?];
    if let Some(branch) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]).filter(|b| b.starts_with("refs/")) {
        watched.push(git(&["rev-parse", "--git-path", &branch])?);
    }
    watched.push(git(&["rev-parse", "--git-path", "packed-refs"])?);
    for path in watched {
        let path = manifest_dir.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        } else if let Some(folder) = path.parent().filter(|folder| folder.exists()) {
            // A packed branch's next commit writes its ref loose, which
            // changes the folder it goes into (`git gc`, then commit).
            println!("cargo:rerun-if-changed={}", folder.display());
        }
    }
    git(&["rev-parse", "--short", "HEAD"]).filter(|hash| !hash.is_empty())
}
