#!/usr/bin/env bash
# 68-migration.t: history files written by older versions. A schema v1
# file is built here with the sqlite3 tool (the v1 DDL as released, rows
# inserted by hand, PRAGMA user_version = 1); cx5prof reads it read-only
# (without migrating it), migrates it when it writes (mirror; v2 adds
# transactions.boot_id, v3 campaigns, runs.campaign and campaign records in
# a rebuilt outbox, v4 transactions.peer_txn, v5
# transactions.peer_undo_pending, v6 runs.limited_by and runs.ledger, v7
# tunes, campaigns.tune and tune records in a rebuilt outbox, v8
# transactions.origin and peer_origin, and fences), keeps
# every row, and drains its
# outbox. An empty (v0) file is no history for the verbs that only read or
# work on one (mirror: exit 66, left empty); apply gives it the current
# schema. A file from a newer
# cx5prof and a corrupt file are refused with the remedy.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
OLD=$TT/old-v1.db
CURRENT=$(sqlite3 "$DB" 'PRAGMA user_version')

sqlite3 "$OLD" <<'SQL'
CREATE TABLE transactions ( id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('apply','rollback')),
 profile_name TEXT, profile_hash TEXT, profile_json TEXT, user TEXT NOT NULL, host TEXT NOT NULL,
 started_usec INTEGER NOT NULL, ended_usec INTEGER,
 status TEXT NOT NULL CHECK (status IN ('open','committed','pending_confirm','rolled_back','failed','rollback_failed')),
 confirm_deadline_usec INTEGER, rolls_back_txn INTEGER REFERENCES transactions(id), error TEXT);
CREATE INDEX transactions_by_status ON transactions(status);
CREATE TABLE changes ( txn INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
 object TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, old_value TEXT, new_value TEXT,
 state TEXT NOT NULL CHECK (state IN ('planned','applied','undone','failed')), error TEXT, PRIMARY KEY (txn, seq));
CREATE INDEX changes_by_key ON changes(object, key);
CREATE TABLE runs ( id INTEGER PRIMARY KEY, txn INTEGER REFERENCES transactions(id),
 profile_name TEXT, profile_hash TEXT, interface TEXT, runner TEXT NOT NULL, peer TEXT, test TEXT, duration_s REAL,
 mtu INTEGER, message_size INTEGER, send_buffer INTEGER, recv_buffer INTEGER, streams INTEGER, irq_policy TEXT,
 driver TEXT, driver_version TEXT, firmware_version TEXT, sent INTEGER, received INTEGER, lost INTEGER,
 send_mbps REAL, recv_mbps REAL, loss_pct REAL, pass INTEGER CHECK (pass IN (0,1)), verdict TEXT,
 started_usec INTEGER NOT NULL, ended_usec INTEGER);
CREATE TABLE artifacts ( run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, content BLOB,
 PRIMARY KEY (run, name));
CREATE TABLE outbox ( id INTEGER PRIMARY KEY, source_kind TEXT NOT NULL CHECK (source_kind IN ('txn','run')),
 source_id INTEGER NOT NULL, payload TEXT NOT NULL,
 status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','sent','failed_permanent')),
 attempts INTEGER NOT NULL DEFAULT 0, next_attempt_usec INTEGER NOT NULL DEFAULT 0,
 last_error TEXT, reply_id TEXT, reply_content TEXT, reply_usage TEXT, created_usec INTEGER NOT NULL, sent_usec INTEGER);
CREATE INDEX outbox_by_status ON outbox(status, next_attempt_usec);
INSERT INTO transactions VALUES (1, 'apply', 'old-profile', 'fnv1a64:1111111111111111', '{}', 'root', 'lab-old',
 1700000000000000, 1700000005000000, 'committed', NULL, NULL, NULL);
INSERT INTO changes VALUES (1, 1, 'ens1f0', 'mtu', 'mtu', '1500', '9000', 'applied', NULL);
INSERT INTO runs VALUES (1, 1, 'old-profile', NULL, 'ens1f0', 'iperf3', '198.18.0.2', 'UDP_STREAM', 10.0,
 9000, 8000, 4194304, 4194304, 1, 'numa-local', 'mlx5_core', '5.8-1.0.1', '16.35.2000 (MT_0000000080)',
 100, 99, 1, 800.0, 792.0, 1.0, 1, 'ok', 1700000010000000, 1700000020000000);
INSERT INTO artifacts VALUES (1, 'command', 'iperf3 -c 198.18.0.2 -u -b 0 -l 8000 --json');
INSERT INTO outbox (source_kind, source_id, payload, created_usec) VALUES ('txn', 1, '{"id":1}', 1700000005000000);
INSERT INTO outbox (source_kind, source_id, payload, created_usec) VALUES ('run', 1, '{"id":1}', 1700000020000000);
PRAGMA user_version = 1;
SQL

run "$CX5PROF" --db "$OLD" history
is "$rc" 0 "v1 file: history reads it"
is "$out" "2023-11-14 22:13:30  run 1     iperf3   old-profile ens1f0 mtu 9000 msg 8000: 792.0 Mbps, loss 1.00%, pass
2023-11-14 22:13:20  txn 1     apply    old-profile committed" "v1 file: its transaction and run"
run "$CX5PROF" --db "$OLD" history show 1
echo "$out" | grep -qx 'command      iperf3 -c 198.18.0.2 -u -b 0 -l 8000 --json'
ok $? "v1 file: history show reads the artifacts"
is "$(sqlite3 "$OLD" 'PRAGMA user_version')" 1 "v1 file: reading it did not migrate it (read-only)"

# A v2 file (boot_id, no peer_txn): read read-only as it is, migrated on write.
V2=$TT/old-v2.db
cp "$OLD" "$V2"
sqlite3 "$V2" 'ALTER TABLE transactions ADD COLUMN boot_id TEXT; PRAGMA user_version = 2'
run "$CX5PROF" --db "$V2" history
is "$rc $(sqlite3 "$V2" 'PRAGMA user_version')" "0 2" "v2 file: read without migrating it"
printf '%s\n' "$out" | grep -qx '2023-11-14 22:13:20  txn 1     apply    old-profile committed'
ok $? "v2 file: its transaction"
printf 'version: 1\nname: bad\nlink:\n  mtuu: 1\n' >"$TT/bad-v2.yaml"
run "$CX5PROF" --db "$V2" apply "$TT/bad-v2.yaml"
is "$rc $(sqlite3 "$V2" 'PRAGMA user_version') $(sqlite3 "$V2" "SELECT coalesce(peer_txn, 'none') FROM transactions")" \
	"65 $CURRENT none" "v2 file: apply migrates it; its transaction tuned no peer (v3 column, NULL)"

# A v4 file (peer_txn, no peer_undo_pending): read read-only as it is,
# `history show txn` says no peer rollback is pending; migrated on write.
V4=$TT/old-v4.db
cp "$V2" "$V4"
sqlite3 "$V4" 'DROP INDEX transactions_by_origin; ALTER TABLE transactions DROP COLUMN origin; ALTER TABLE transactions DROP COLUMN peer_origin; DROP TABLE fences;
ALTER TABLE transactions DROP COLUMN peer_undo_pending; ALTER TABLE runs DROP COLUMN limited_by;
ALTER TABLE runs DROP COLUMN ledger; ALTER TABLE campaigns DROP COLUMN tune; DROP TABLE tunes; PRAGMA user_version = 4'
run "$CX5PROF" --json --db "$V4" history show txn 1
is "$rc $(sqlite3 "$V4" 'PRAGMA user_version') $(printf '%s' "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["transaction"]["peer_undo_pending"])')" \
	"0 4 None" "v4 file: read without migrating it; no peer rollback pending"
run "$CX5PROF" --db "$V4" apply "$TT/bad-v2.yaml"
is "$rc $(sqlite3 "$V4" 'PRAGMA user_version') $(sqlite3 "$V4" "SELECT coalesce(peer_undo_pending, 'none') FROM transactions")" \
	"65 $CURRENT none" "v4 file: apply migrates it (v5 column peer_undo_pending, NULL)"

# A v5 file (no loss ledger): its runs read read-only with no ledger,
# migrated on write (v6 runs.limited_by and runs.ledger, NULL for the old
# rows).
V5=$TT/old-v5.db
cp "$V2" "$V5"
sqlite3 "$V5" 'DROP INDEX transactions_by_origin; ALTER TABLE transactions DROP COLUMN origin; ALTER TABLE transactions DROP COLUMN peer_origin; DROP TABLE fences;
ALTER TABLE runs DROP COLUMN limited_by; ALTER TABLE runs DROP COLUMN ledger; ALTER TABLE campaigns DROP COLUMN tune;
DROP TABLE tunes; PRAGMA user_version = 5'
run "$CX5PROF" --db "$V5" --json history show 1
is "$rc $(sqlite3 "$V5" 'PRAGMA user_version')" "0 5" "v5 file: read without migrating it"
is "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin)["run"]; print(d.get("limited_by"), d.get("ledger"))')" \
	"None None" "v5 file: its run has no loss ledger"
run "$CX5PROF" --db "$V5" apply "$TT/bad-v2.yaml"
is "$rc $(sqlite3 "$V5" 'PRAGMA user_version') $(sqlite3 "$V5" "SELECT coalesce(limited_by, 'none') || '/' || coalesce(ledger, 'none') FROM runs")" \
	"65 $CURRENT none/none" "v5 file: apply migrates it; its run has no ledger (v6 columns, NULL)"

# A v7 file (v8 adds transactions.origin and peer_origin, and fences):
# read as it is, then migrated by a write, its rows kept.
V7=$TT/old-v7.db
cp "$V5" "$V7"
sqlite3 "$V7" 'DROP INDEX transactions_by_origin; ALTER TABLE transactions DROP COLUMN origin; ALTER TABLE transactions DROP COLUMN peer_origin; DROP TABLE fences;
PRAGMA user_version = 7'
run "$CX5PROF" --db "$V7" --json history
is "$rc $(sqlite3 "$V7" 'PRAGMA user_version')" "0 7" "v7 file: read without migrating it"
n7=$(sqlite3 "$V7" 'SELECT COUNT(*) FROM transactions')
run "$CX5PROF" --db "$V7" apply "$TT/bad-v2.yaml"
is "$rc $(sqlite3 "$V7" 'PRAGMA user_version') $(sqlite3 "$V7" "SELECT COUNT(*) || '/' || COUNT(origin) || '/' || COUNT(peer_origin) FROM transactions") $(sqlite3 "$V7" 'SELECT COUNT(*) FROM fences')" \
	"65 $CURRENT $n7/0/0 0" "v7 file: apply migrates it; its transactions kept, no origin (v8 columns, NULL), no fences"

run "$CX5PROF" --db "$OLD" mirror
is "$rc/$out" "0/sent 2, pending 0" "v1 file: opened for writing (migrated) and its outbox drained"
is "$(sqlite3 "$OLD" 'PRAGMA user_version')" "$CURRENT" "v1 file: now at the current schema version ($CURRENT)"
is "$(sqlite3 "$OLD" 'SELECT COUNT(*) FROM transactions')/$(sqlite3 "$OLD" 'SELECT COUNT(*) FROM changes')/$(sqlite3 "$OLD" 'SELECT COUNT(*) FROM runs')/$(sqlite3 "$OLD" 'SELECT COUNT(*) FROM artifacts')" \
	"1/1/1/1" "v1 file: every row kept"
is "$(sqlite3 "$OLD" "SELECT coalesce(boot_id, 'unknown') FROM transactions")" unknown \
	"v1 file: its transaction's boot is unknown (v2 column, NULL)"
is "$(acked_records | tr '\n' ' ')" "run 1 txn 1 " "v1 file: each old record sent once"
is "$(sqlite3 "$OLD" "SELECT coalesce(campaign, 'none') FROM runs")/$(sqlite3 "$OLD" 'SELECT COUNT(*) FROM campaigns')" "none/0" \
	"v1 file: its run belongs to no campaign (v3 column, NULL), no campaigns"
sqlite3 "$OLD" "INSERT INTO outbox (source_kind, source_id, payload, created_usec) VALUES ('campaign', 1, '{}', 1)"
ok $? "v1 file: its rebuilt outbox takes campaign records (v3), the old rows kept"
sqlite3 "$OLD" "INSERT INTO outbox (source_kind, source_id, payload, created_usec) VALUES ('tune', 1, '{}', 1)"
ok $? "v1 file: its outbox takes tune records (v7)"
is "$(sqlite3 "$OLD" 'SELECT COUNT(*) FROM tunes')" 0 "v1 file: a tunes table (v7), empty"

: >"$TT/empty.db"
run "$CX5PROF" --db "$TT/empty.db" mirror --list
is "$rc:$err" "66:cx5prof: error: no history in $TT/empty.db (the file is empty or not started): check --db (apply, verify, bench, campaign and tune create one)" \
	"v0 (empty) file: mirror says it holds no history"
is "$(stat -c %s "$TT/empty.db"):$(ls "$TT" | grep -c '^empty\.db-')" "0:0" "v0 (empty) file: mirror left it empty"
printf 'version: 1\nname: bad\nlink:\n  mtuu: 1\n' >"$TT/bad.yaml"
run "$CX5PROF" --db "$TT/empty.db" apply "$TT/bad.yaml"
is "$rc:$(sqlite3 "$TT/empty.db" 'PRAGMA user_version')" "65:$CURRENT" "v0 file: apply migrates it to the current schema"

cp "$OLD" "$TT/newer.db"
sqlite3 "$TT/newer.db" 'PRAGMA user_version = 99'
run "$CX5PROF" --db "$TT/newer.db" history
is "$rc" 1 "file from a newer cx5prof: refused"
is "$err" "cx5prof: error: history $TT/newer.db: Protocol not supported: the database was written by a newer cx5prof: use that version" \
	"file from a newer cx5prof: message with the remedy"

head -c 4096 /dev/urandom >"$TT/corrupt.db"
run "$CX5PROF" --db "$TT/corrupt.db" mirror --list
is "$rc" 1 "corrupt file: refused"
is "$err" "cx5prof: error: history $TT/corrupt.db: Bad message: check --db: the file is not a cx5prof history, or it is corrupt" \
	"corrupt file: message with the remedy"
done_testing
