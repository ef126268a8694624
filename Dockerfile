# syntax=docker/dockerfile:1
# ligretto's server as a container image (docs/deploy.md, "Containers").
#   docker build -t ligretto .
#   docker run -p 8000:8000 -v ligretto-data:/data ligretto
# The builder compiles the hot path with mypyc (setup.py) into a wheel; the image installs
# that wheel and its dependencies' wheels only: no compiler, no sources, no tests.

FROM python:3.11-slim AS builder
# gcc and the C library's headers; the image already has Python's.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --wheel-dir /wheels .
# setup.py falls back to interpreted modules when compiling fails: refuse such a build here.
RUN python -c "import glob, zipfile; wheel, = glob.glob('/wheels/ligretto-*.whl'); \
names = zipfile.ZipFile(wheel).namelist(); \
assert any(n.startswith('ligretto/engine/state.') and n.endswith('.so') for n in names), 'not compiled'"

FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin ligretto \
    && mkdir /data && chown ligretto:ligretto /data
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels ligretto
USER ligretto
WORKDIR /data
# The SQLite file of a lone process (the default --db below); a service of several
# processes gives --db postgresql://... instead (deploy/compose.yaml).
VOLUME /data
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
# Liveness: the event loop answers.  The load balancer asks /readyz (docs/deploy.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
# docker stop sends SIGTERM: the process hands its tables over and exits (docs/deploy.md).
STOPSIGNAL SIGTERM
ENTRYPOINT ["ligretto", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD ["--db", "/data/ligretto.db"]
