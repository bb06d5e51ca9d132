#!/usr/bin/env bash
# Installs what the pooler and topology tests run, from Debian's packages, when missing:
# PgBouncer (transaction pooler), HAProxy (load balancer), Redis (shared API quota store).
# `apt-get update` runs once, and only when something is missing. Needs root (CI runs as root).
set -euo pipefail
missing=()
for pair in pgbouncer:/usr/sbin/pgbouncer haproxy:/usr/sbin/haproxy redis-server:/usr/bin/redis-server; do
  [ -x "${pair#*:}" ] || missing+=("${pair%%:*}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing ${missing[*]} from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
