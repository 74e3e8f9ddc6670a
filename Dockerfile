# Tandem server image: build with the Swift toolchain, run on slim Debian.
ARG SWIFT_IMAGE=swift:6.1-bookworm

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libwebsockets-dev libuv1-dev liburing-dev libsqlite3-dev libssl-dev pkg-config libhiredis-dev liblo-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product tandem --static-swift-stdlib

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libwebsockets17 libwebsockets-evlib-uv libuv1 liburing2 libsqlite3-0 libssl3 libhiredis0.14 liblo7 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 tandem \
 && useradd --system --uid 10001 --gid tandem --home-dir /srv/tandem --shell /usr/sbin/nologin tandem \
 && mkdir -p /data && chown tandem:tandem /data
COPY --from=build /src/.build/release/tandem /usr/local/bin/tandem
COPY web /srv/tandem/web
WORKDIR /srv/tandem
# Never root: the server needs no privilege (port 8080, its own /data).
USER tandem:tandem
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=2s CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && grep -q ok <&3"]
ENTRYPOINT ["tandem", "--host", "0.0.0.0", "--port", "8080", "--web", "/srv/tandem/web"]
CMD ["--data", "/data/tandem.db"]
