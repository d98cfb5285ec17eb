#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The systemd unit template tools/systemd/ptbpf@.service, as `make install`
# puts it: every key one systemd knows in its section, the keys the
# recording needs, its ExecStart a command line this ptbpf accepts (run:
# it gets past argument parsing to the unit's resolution), and, where
# systemd-analyze exists, `systemd-analyze verify` of an instance with no
# word of complaint. Leaves nothing behind.
set -u
cd "$(dirname "$0")/.."
fail=0
bad() {
	echo "systemd: $*"
	fail=1
}
tmp=$(mktemp -d /tmp/ptbpf-test-systemd-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# installed as make install does, into a scratch DESTDIR with PREFIX=/usr
make -s install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/install.log" 2>&1 ||
	bad "make install failed: $(tail -n 5 "$tmp/install.log")"
unit=$tmp/root/usr/lib/systemd/system/ptbpf@.service
[ -f "$unit" ] || { bad "make install did not install $unit"; exit 1; }

# sections and keys: the ones systemd.unit(5), .service(5), .exec(5) name
known='Unit:Description Unit:Documentation Unit:After Unit:BindsTo Unit:PartOf
Service:Type Service:StateDirectory Service:StateDirectoryMode Service:ExecStart
Service:KillSignal Service:TimeoutStopSec Service:Restart Service:RestartSec
Install:WantedBy'
section=
while IFS= read -r line; do
	case $line in
	'' | '#'*) continue ;;
	'['*']') section=${line#[}; section=${section%]} ;;
	*=*)
		key=${line%%=*}
		grep -qw -- "$section:$key" <<<"$known" ||
			bad "unknown key $key in [$section]"
		;;
	*) bad "not a key=value line: $line" ;;
	esac
done <"$unit"

# what the recording needs: the instance's unit, its own state directory
need() {
	grep -qxF -- "$1" "$unit" || bad "missing line: $1"
}
need 'After=%i.service'
need 'BindsTo=%i.service'
need 'StateDirectory=ptbpf/%i'
need 'WantedBy=%i.service'
need 'ExecStart=/usr/bin/ptbpf --unit %i.service -o /var/lib/ptbpf/%i --max-size 1G'

# the command line parses: a usage error exits 2, the unit's lookup 1
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
args=${exec_line#/usr/bin/ptbpf }
args=${args//%i/ptbpf-test-none}
args=${args//\/var\/lib\/ptbpf\//$tmp\/}
# shellcheck disable=SC2086
./ptbpf $args >"$tmp/run.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || bad "ExecStart's options: status $rc (want 1, after parsing): $(cat "$tmp/run.log")"
grep -q 'unit\|systemd' "$tmp/run.log" ||
	bad "ExecStart's run did not reach the unit's lookup: $(cat "$tmp/run.log")"
[ ! -e "$tmp/ptbpf-test-none" ] || bad "a run that failed made its output directory"

if command -v systemd-analyze >/dev/null; then
	# an instance of a service that exists, the binary this tree built
	mkdir -p "$tmp/units"
	sed "s|/usr/bin/ptbpf|$PWD/ptbpf|" "$unit" >"$tmp/units/ptbpf@demo.service"
	printf '[Unit]\nDescription=demo\n[Service]\nExecStart=/bin/true\n' \
		>"$tmp/units/demo.service"
	(cd "$tmp/units" && systemd-analyze verify --man=no ./ptbpf@demo.service) \
		>"$tmp/verify.log" 2>&1 || bad "systemd-analyze verify failed: $(cat "$tmp/verify.log")"
	# it warns of an unknown key without failing: any word is a complaint
	if [ -s "$tmp/verify.log" ]; then
		bad "systemd-analyze verify said: $(cat "$tmp/verify.log")"
	else
		echo "systemd: systemd-analyze verify: ok"
	fi
else
	# tools/deps.sh installs systemd; a missing verifier is a failure, not a pass
	bad "no systemd-analyze here (tools/deps.sh installs the systemd package)"
fi
[ "$fail" = 0 ] && echo "systemd: ok"
exit "$fail"
