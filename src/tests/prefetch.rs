//! The build with its record read beforehand, while the project loads (batch builds do).

use crate::build::{BuildOptions, BuildStatus, build, build_with, prefetch};
use crate::incremental::record::RecordFile;
use crate::project::Project;

#[test]
fn a_prefetched_cache_serves_only_the_epub_it_was_read_for() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("1.txt"), "第一段。\n").unwrap();
    std::fs::write(
        dir.path().join("metadata.toml"),
        "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
         [[chapters]]\nfile = \"1.txt\"\n",
    )
    .unwrap();
    let project = Project::load(dir.path()).unwrap();
    let opts = |output: &str| BuildOptions {
        output: Some(dir.path().join(output)),
        cache: true,
        source_date_epoch: Some(1_700_000_000),
        ..BuildOptions::default()
    };
    let default = project.default_output();
    assert_eq!(
        build(&project, &opts("a.epub")).unwrap().status,
        BuildStatus::Built
    );
    // Read for a.epub: it is up to date.
    let for_a = prefetch(&opts("a.epub"), &default, None);
    assert!(for_a.record.is_some());
    let r = build_with(&project, &opts("a.epub"), Some(for_a)).unwrap();
    assert_eq!(r.status, BuildStatus::UpToDate);
    // Read for another EPUB (none there): a.epub's own cache is read instead.
    let for_b = prefetch(&opts("b.epub"), &default, None);
    assert!(for_b.record.is_none());
    let r = build_with(&project, &opts("a.epub"), Some(for_b)).unwrap();
    assert_eq!(r.status, BuildStatus::UpToDate);
    // The default output when the options name none; nothing read for --force.
    assert_eq!(
        prefetch(&BuildOptions::default(), &default, None).output,
        default
    );
    let force = BuildOptions {
        force: true,
        ..opts("a.epub")
    };
    assert!(prefetch(&force, &default, None).record.is_none());
    // A record the quick check read is taken for its own EPUB only, and not under --force.
    let read = || {
        Some(Box::new((
            dir.path().join("a.epub"),
            RecordFile::load(&dir.path().join("a.epub")).unwrap(),
        )))
    };
    assert!(prefetch(&opts("a.epub"), &default, read()).record.is_some());
    assert!(prefetch(&opts("b.epub"), &default, read()).record.is_none());
    assert!(prefetch(&force, &default, read()).record.is_none());
}
