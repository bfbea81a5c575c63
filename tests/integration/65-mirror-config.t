#!/usr/bin/env bash
# 65-mirror-config.t: the mirror configuration and the key are checked
# before any network call: a missing base_url, model_id or key source is a
# config error naming it; a key file readable by group or others is refused
# (like ssh) naming its mode; one trailing newline is accepted, other
# whitespace is refused; the key may come from the environment; plain http
# only to loopback. The server must see no request for any of these.
# Also: where the config comes from (--config, $CX5PROF_MIRROR_CONFIG,
# a profile's mirror.taotoken with --profile).
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/helpers/taotoken.sh"
tt_setup
CFG=$CX5PROF_MIRROR_CONFIG

mirror() { run "$CX5PROF" --db "$DB" mirror "$@"; }

tt_write_config "api_key_file: $KEYFILE" "model_id: test-model"
mirror
is "$rc" 65 "no base_url: invalid config"
is "$err" "cx5prof: error: $CFG:1:1: taotoken: missing required key \"base_url\"" "no base_url: named"
tt_write_config "base_url: $BASE_URL" "api_key_file: $KEYFILE"
mirror
is "$rc/$err" "65/cx5prof: error: $CFG:1:1: taotoken: missing required key \"model_id\"" "no model_id: named"
tt_write_config "base_url: $BASE_URL" "model_id: test-model"
mirror
is "$rc/$err" "65/cx5prof: error: $CFG:1:1: taotoken: missing api_key_file or api_key_env (where to read the API key)" \
	"no key source: named"
tt_write_config "base_url: $BASE_URL" "model_id: test-model" "api_key: $KEY"
mirror
is "$rc/$err" "65/cx5prof: error: $CFG:4:3: taotoken.api_key: not allowed: an API key is never written in a file cx5prof reads as configuration: put it in a file only root can read and set api_key_file, or set api_key_env" \
	"an inline key is refused"
tt_write_config "base_url: http://192.0.2.1/api" "model_id: test-model" "api_key_file: $KEYFILE"
mirror
is "$rc/$err" "65/cx5prof: error: mirror: $CFG: base_url 'http://192.0.2.1/api': plain http is accepted only for a loopback host (the key would cross the network in clear text): use https://" \
	"plain http to a non-loopback host is refused"

tt_write_config "base_url: $BASE_URL" "api_key_file: $KEYFILE" "model_id: test-model" "task: cx5-lab"
chmod 0644 "$KEYFILE"
mirror
is "$rc" 77 "key file mode 0644: permission exit code"
is "$err" "cx5prof: error: mirror: key file $KEYFILE is accessible by group or others (mode 0644): refusing it, as ssh does; run: chmod 600 $KEYFILE" \
	"key file mode 0644: refused, naming the mode"
chmod 0640 "$KEYFILE"
mirror
is "$rc" 77 "key file mode 0640: refused"
chmod 0600 "$KEYFILE"
printf '%s\n\n' "$KEY" >"$KEYFILE"
mirror
is "$rc/$err" "65/cx5prof: error: mirror: key file $KEYFILE: the key contains whitespace or a control character at byte $((${#KEY} + 1)) (only one trailing newline is ignored): remove it" \
	"a second trailing newline is refused, with the byte position"
printf '%s \n' "$KEY" >"$KEYFILE"
mirror
is "$rc" 65 "a trailing space is refused"
rm -f "$KEYFILE"
mirror
is "$rc/$err" "66/cx5prof: error: mirror: key file $KEYFILE (api_key_file): No such file or directory" "missing key file"
is "$(requests_total)/$(outbox_count pending)" "0/4" "no request reached the server; every record still pending"

tt_write_config "base_url: $BASE_URL" "api_key_env: CX5T_TAOTOKEN_KEY" "model_id: test-model" "task: cx5-lab"
mirror
is "$rc/$err" "66/cx5prof: error: mirror: environment variable CX5T_TAOTOKEN_KEY (api_key_env) is not set or empty" \
	"api_key_env unset: named"
run env CX5T_TAOTOKEN_KEY="$KEY" "$CX5PROF" --db "$DB" mirror
is "$rc/$out" "0/sent 4, pending 0" "key from the environment: sent"

# where the configuration comes from
"$(tt_test_runs)" --make-db "$DB"
mv "$CFG" "$TT/other.yaml"
run env CX5T_TAOTOKEN_KEY="$KEY" "$CX5PROF" --db "$DB" mirror
is "$rc/$err" "66/cx5prof: error: mirror config $CFG does not exist: create it (taotoken: base_url, api_key_file, model_id), or name one with --config or \$CX5PROF_MIRROR_CONFIG" \
	"missing mirror file: says how to create or name one"
run env CX5T_TAOTOKEN_KEY="$KEY" "$CX5PROF" --db "$DB" mirror --config "$TT/other.yaml"
is "$rc/$out" "0/sent 4, pending 0" "--config FILE overrides \$CX5PROF_MIRROR_CONFIG"
cat >"$TT/profile.yaml" <<EOP
version: 1
name: lab
mirror:
  taotoken:
    base_url: $BASE_URL
    api_key_file: $KEYFILE
    model_id: test-model
    task: from-profile
EOP
(umask 077 && printf "%s\n" "$KEY" >"$KEYFILE")
"$(tt_test_runs)" --make-db "$DB"
run "$CX5PROF" --db "$DB" mirror --profile "$TT/profile.yaml"
is "$rc/$out" "0/sent 4, pending 0" "--profile: the profile's mirror.taotoken section"
is "$(tail -n 1 "$SRVLOG" | /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["user"])')" "from-profile" \
	"--profile: sent under the profile's task name"
printf 'version: 1\nname: nomirror\n' >"$TT/nomirror.yaml"
run "$CX5PROF" --db "$DB" mirror --profile "$TT/nomirror.yaml"
is "$rc/$err" "65/cx5prof: error: $TT/nomirror.yaml: no mirror.taotoken section: add base_url, api_key_file and model_id" \
	"--profile without a mirror section"
done_testing
