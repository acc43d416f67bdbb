// Command a2a-scaffold turns an agent manifest (agent.yaml) into A2A agent
// artifacts: it creates agent projects and regenerates them when the
// manifest changes, validates manifests, prints the agent card they
// describe (optionally signed, A2A §8.4), verifies card signatures, and
// writes the bundled A2A proto with everything protoc needs.
//
//	a2a-scaffold new weather --manifest agent.yaml
//	a2a-scaffold generate --dir weather
//	a2a-scaffold validate agent.yaml
//	a2a-scaffold card agent.yaml --url https://agent.example.com
//	a2a-scaffold card agent.yaml --sign key.pem --kid 2026-01 > card.json
//	a2a-scaffold card verify card.json --key public.pem
//	a2a-scaffold proto --out proto
//
// See `a2a-scaffold --help` and docs/manifest.md.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
