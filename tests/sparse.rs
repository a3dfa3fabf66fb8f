//! The sparse-file contract: logical size is the whole partition, physical size what was
//! written; range skips holes; delete gives blocks back.

mod common;

use std::time::{Duration, Instant};

use common::{allocated_bytes, logical_bytes, TestDb};

const YEAR_2024_MS: u64 = 366 * 86_400_000;

#[test]
fn one_put_allocates_a_few_blocks_of_a_full_year_file() {
    let db = TestDb::create("1ms", "price:f64,qty:f64", &[]);
    db.ok(&["put", "2024-07-01T12:00:00.123Z", "1.5", "2"]);
    let file = db.file("2024.xs");
    // Each slot: the row, then its 4-byte check (partition version 3).
    let slot_len = 1 + 8 + 8 + 4;
    assert_eq!(logical_bytes(&file), 4096 + YEAR_2024_MS * slot_len);
    let allocated = allocated_bytes(&file);
    assert!(
        allocated <= 8 * 4096,
        "{allocated} bytes allocated for one row and a header"
    );
}

#[test]
fn range_over_a_year_of_holes_reads_only_the_data() {
    let db = TestDb::create("1ms", "v:i64", &["--depth", "8"]);
    db.ok(&["put", "2024-01-01T00:00:00.000Z", "1"]);
    db.ok(&["put", "2024-12-31T23:59:59.999Z", "2"]);
    // The file is 2 TiB logical (366 days × 86.4 M slots × 8 rows × 9 bytes); reading its holes
    // would take many minutes. Walking SEEK_DATA takes milliseconds: allow far more than that.
    assert!(logical_bytes(&db.file("2024.xs")) > 2 << 40);
    let started = Instant::now();
    let out = db.ok(&["range", "2024-01-01", "2025-01-01"]);
    let took = started.elapsed();
    assert_eq!(
        out,
        "time,v\n2024-01-01T00:00:00.000Z,1\n2024-12-31T23:59:59.999Z,2\n"
    );
    assert!(
        took < Duration::from_secs(20),
        "range took {took:?}: it must not read holes"
    );
    // Windows that cut through data return exactly what lies inside them.
    assert_eq!(
        db.ok(&["range", "2024-01-01T00:00:00.001Z", "2024-12-31T23:59:59.999Z"]),
        "time,v\n"
    );
    assert_eq!(
        db.ok(&["range", "2024-12-31T23:59:59.999Z", "2030-01-01"]),
        "time,v\n2024-12-31T23:59:59.999Z,2\n"
    );
    assert_eq!(
        db.ok(&["range", "2024-01-01", "2025-01-01", "--limit", "1"])
            .lines()
            .count(),
        2
    );
}

#[test]
fn delete_clears_rows_and_lowers_the_allocated_size() {
    let db = TestDb::create("1s", "v:f64,note:str(247)", &[]);
    // 300 consecutive seconds of 256-byte rows: 75 KiB over 19 blocks.
    let rows: Vec<String> = (0..300).map(|i| format!("{}s", 1_704_067_200 + i)).collect();
    for t in &rows {
        db.ok(&["put", t, "1", "x"]);
    }
    let file = db.file("2024.xs");
    let before = allocated_bytes(&file);
    assert!(before >= 8 * 4096, "{before}");
    // Delete all but the first and last row; the middle blocks are punched out.
    let (first, last) = (&rows[0], &rows[299]);
    let out = db.xs(&["delete", &rows[1], last]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "deleted 298 rows\n");
    let after = allocated_bytes(&file);
    assert!(after <= before - 15 * 4096, "allocated {before} → {after}");
    let left = db.ok(&["range", "2024-01-01", "2025-01-01"]);
    assert_eq!(
        left,
        "time,v,note\n2024-01-01T00:00:00Z,1.0,x\n2024-01-01T00:04:59Z,1.0,x\n"
    );
    // Deleting one timestamp, then the rest; a hole-only file reads as empty.
    db.ok(&["delete", first]);
    db.ok(&["delete", "2024-01-01", "2025-01-01"]);
    assert_eq!(db.ok(&["range", "2024-01-01", "2025-01-01"]), "time,v,note\n");
    // The header block, and on ext4 at most one extent-tree block.
    assert!(
        allocated_bytes(&file) <= 2 * 4096,
        "only the header remains: {}",
        allocated_bytes(&file)
    );
}

#[test]
fn delete_of_part_of_a_block_keeps_its_neighbours() {
    let db = TestDb::create("1s", "v:i32", &[]);
    for i in 0..10 {
        db.ok(&["put", &format!("{}s", 1_704_067_200 + i), &i.to_string()]);
    }
    db.ok(&["delete", "1704067203s", "1704067206s"]);
    let left = db.ok(&["range", "2024-01-01", "2024-01-02"]);
    let values: Vec<&str> = left
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(values, ["0", "1", "2", "6", "7", "8", "9"]);
}
