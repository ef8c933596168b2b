#!/usr/bin/env bash
# `npm run infra:up`: installs (idempotently, into a cache outside the repository) and starts on
# loopback the real servers the distributed suites talk to: Postgres 15 and ClickHouse 18.16
# (Debian), an Apache Kafka 3.9 broker in KRaft mode (jars from Maven Central) and MinIO (built
# with `go install`). Writes their ERRATA_* settings to .errata-infra.env at the repository
# root and each PID to $ERRATA_INFRA_RUN/pids; `npm run infra:down` stops exactly those.
# Running it again while the servers answer changes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
LOG_TAG=infra
. test/infra/lib.sh
# Every port sits below 32768, outside Linux's ephemeral range (32768-60999), so a client socket
# left in TIME_WAIT by an earlier suite can never hold one when a server starts.
PG_PORT=15432 CH_HTTP_PORT=18123 CH_TCP_PORT=19500 KAFKA_PORT=19092 KAFKA_CONTROLLER_PORT=19093 MINIO_PORT=19900
# Pods of the cluster suite reach Kafka at the bridge gateway (npm run cluster:up), where
# test/infra/pod-gateway.ts forwards this loopback port; the broker advertises that address.
KAFKA_POD_PORT=19094 POD_GATEWAY=10.88.0.1
KAFKA_VERSION=3.9.1
# The newest minio/minio the Go module proxy serves (the repository is archived; its release
# tags are not on the proxy).
MINIO_MODULE=github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_USER=errata-minio MINIO_PASSWORD=errata-minio-secret
mkdir -p "$CACHE/bin" "$RUN" "$PIDS"
chmod 755 "$RUN"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- packages -------------------------------------------------------------------------------
need_apt=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need_apt+=(postgresql-15)
command -v clickhouse-server >/dev/null || need_apt+=(clickhouse-server clickhouse-client)
command -v curl >/dev/null || need_apt+=(curl)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  # Debian's postinst starts a system cluster/service where it can; ours run on their own ports.
fi

if [ ! -f "$CACHE/kafka-$KAFKA_VERSION/lib/kafka_2.13-$KAFKA_VERSION.jar" ]; then
  log "fetching the Kafka $KAFKA_VERSION broker jars from Maven Central"
  mkdir -p "$CACHE/kafka-$KAFKA_VERSION"
  cat >"$CACHE/kafka-$KAFKA_VERSION/pom.xml" <<POM
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.errata</groupId><artifactId>kafka-broker</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
  (cd "$CACHE/kafka-$KAFKA_VERSION" && mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DoutputDirectory=lib -DincludeScope=runtime)
fi

# ---- Postgres -------------------------------------------------------------------------------
PG_BIN=/usr/lib/postgresql/15/bin
pg_user() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ! alive postgres; then
  log "starting Postgres on 127.0.0.1:$PG_PORT"
  mkdir -p "$RUN/postgres"
  [ "$(id -u)" = 0 ] && chown postgres "$RUN/postgres"
  if [ ! -f "$RUN/postgres/db/PG_VERSION" ]; then
    pg_user "$PG_BIN/initdb" -D "$RUN/postgres/db" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
  fi
  pg_user "$PG_BIN/pg_ctl" -D "$RUN/postgres/db" -l "$RUN/postgres/postgres.log" -w start -o \
    "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories=$RUN/postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" >/dev/null
  head -1 "$RUN/postgres/db/postmaster.pid" >"$PIDS/postgres.pid"
fi
pg_user "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='errata'" | grep -q 1 ||
  pg_user "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc 'CREATE DATABASE errata' >/dev/null

# ---- ClickHouse -----------------------------------------------------------------------------
if ! alive clickhouse; then
  log "starting ClickHouse on 127.0.0.1:$CH_HTTP_PORT"
  CH="$RUN/clickhouse"
  mkdir -p "$CH/data" "$CH/tmp" "$CH/user_files" "$CH/format_schemas"
  cat >"$CH/config.xml" <<XML
<yandex>
  <logger><level>warning</level><log>$CH/server.log</log><errorlog>$CH/error.log</errorlog><size>10M</size><count>2</count></logger>
  <http_port>$CH_HTTP_PORT</http_port>
  <tcp_port>$CH_TCP_PORT</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$CH/data/</path>
  <tmp_path>$CH/tmp/</tmp_path>
  <user_files_path>$CH/user_files/</user_files_path>
  <format_schema_path>$CH/format_schemas/</format_schema_path>
  <users_config>$CH/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <max_concurrent_queries>100</max_concurrent_queries>
</yandex>
XML
  cat >"$CH/users.xml" <<XML
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
  nohup clickhouse-server --config-file="$CH/config.xml" >"$CH/stdout.log" 2>&1 &
  echo $! >"$PIDS/clickhouse.pid"
  wait_for clickhouse 60 curl -sf "http://127.0.0.1:$CH_HTTP_PORT/ping"
fi

# ---- Kafka (KRaft, one broker and controller) ------------------------------------------------
if ! alive kafka; then
  log "starting Kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT"
  K="$RUN/kafka"
  mkdir -p "$K"
  cat >"$K/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT,POD://127.0.0.1:$KAFKA_POD_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,POD://$POD_GATEWAY:$KAFKA_POD_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,POD:PLAINTEXT
log.dirs=$K/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  cat >"$K/log4j.properties" <<PROPS
log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=$K/server.log
log4j.appender.file.MaxFileSize=10MB
log4j.appender.file.MaxBackupIndex=2
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.kafka.server.KafkaRaftServer=INFO
PROPS
  CP="$CACHE/kafka-$KAFKA_VERSION/lib/*"
  if [ ! -f "$K/data/meta.properties" ]; then
    java -cp "$CP" kafka.tools.StorageTool format -t "$(java -cp "$CP" kafka.tools.StorageTool random-uuid)" \
      -c "$K/server.properties" --ignore-formatted >"$K/format.log" 2>&1
  fi
  nohup java -Xms128m -Xmx512m -XX:+UseSerialGC -Dlog4j.configuration="file:$K/log4j.properties" \
    -cp "$CP" kafka.Kafka "$K/server.properties" >"$K/stdout.log" 2>&1 &
  echo $! >"$PIDS/kafka.pid"
  wait_for kafka 90 port_open "$KAFKA_PORT"
fi

# ---- MinIO ----------------------------------------------------------------------------------
if [ ! -x "$CACHE/bin/minio" ]; then
  log "building MinIO with go install (several minutes the first time)"
  GOBIN="$CACHE/bin" GOFLAGS=-mod=mod go install "$MINIO_MODULE"
fi
if ! alive minio; then
  log "starting MinIO on 127.0.0.1:$MINIO_PORT"
  mkdir -p "$RUN/minio/data"
  MINIO_ROOT_USER=$MINIO_USER MINIO_ROOT_PASSWORD=$MINIO_PASSWORD MINIO_BROWSER=off \
    nohup "$CACHE/bin/minio" server "$RUN/minio/data" --address "127.0.0.1:$MINIO_PORT" --quiet >"$RUN/minio/minio.log" 2>&1 &
  echo $! >"$PIDS/minio.pid"
  wait_for minio 60 curl -sf "http://127.0.0.1:$MINIO_PORT/minio/health/ready"
fi

cat >"$REPO/.errata-infra.env" <<ENV
# Written by npm run infra:up: the real servers of the distributed suites (loopback only).
ERRATA_POSTGRES_URL=postgres://postgres@127.0.0.1:$PG_PORT/errata
ERRATA_CLICKHOUSE_URL=http://127.0.0.1:$CH_HTTP_PORT
ERRATA_CLICKHOUSE_DATABASE=errata
ERRATA_KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
ERRATA_S3_ENDPOINT=http://127.0.0.1:$MINIO_PORT
ERRATA_S3_REGION=us-east-1
ERRATA_S3_BUCKET=errata-test
ERRATA_S3_FORCE_PATH_STYLE=true
ERRATA_S3_ACCESS_KEY_ID=$MINIO_USER
ERRATA_S3_SECRET_ACCESS_KEY=$MINIO_PASSWORD
ERRATA_INFRA_PIDS=$PIDS
ERRATA_INFRA_UP=$REPO/test/infra/up.sh
ENV
log "ready; settings in .errata-infra.env"
