// Package templates holds the text/template files a2a-scaffold renders
// for the parts of an agent project that are not Go (Go files are built
// with jennifer in internal/scaffold): the Makefile, .gitignore, README.md,
// go.mod, the Dockerfile and its .dockerignore, and the deploy kit
// (deploy/kubernetes.yaml, deploy/compose.yaml) and a standalone project's
// CI workflow (.github/workflows/ci.yml). Each template receives
// internal/scaffold's project data.
package templates

import "embed"

// FS holds the templates, named after the file they render plus ".tmpl"
// (gitignore.tmpl renders .gitignore; dockerignore.tmpl renders
// .dockerignore, or Dockerfile.dockerignore for a package of another
// module; deploy-kubernetes.yaml.tmpl renders deploy/kubernetes.yaml;
// github-ci.yml.tmpl renders .github/workflows/ci.yml).
//
//go:embed *.tmpl
var FS embed.FS
