# cairn's image: the static binary on a minimal base (docs/scale.md, "Kubernetes").
#   docker build -t REGISTRY/cairn:TAG . && docker push REGISTRY/cairn:TAG
# The build stage's Go is go.mod's; the build step is the README's go build, with no C
# dependencies (CGO_ENABLED=0), so the binary runs on any Linux base.
FROM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/cairn ./cmd/cairn

# Alpine rather than an empty base: the Indexed Job's command needs a shell for its part number.
FROM alpine:3.22
COPY --from=build /out/cairn /usr/local/bin/cairn
# No root: cairn needs none, and its state and results go under its home. The user is numeric
# so that Kubernetes can verify runAsNonRoot; deploy/kubernetes/'s securityContext names the same
# uid and gid (fsGroup makes the results volume writable by it).
RUN addgroup -g 65532 cairn && adduser -D -u 65532 -G cairn cairn
USER 65532:65532
WORKDIR /home/cairn
ENTRYPOINT ["cairn"]
