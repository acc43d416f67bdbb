// Command dist builds a2agen's release artifacts (make dist): for each
// platform, static binaries of the three commands (a2a, a2a-scaffold,
// protoc-gen-a2a) with what they were built from stamped (internal/version:
// the release version, the commit, the dirty flag), in an archive with
// LICENSE, NOTICE, README.md and CHANGELOG.md (tar.gz, zip for Windows);
// the module list of every binary (`go version -m`, the input of SBOM tools);
// and SHA256SUMS over the archives and module lists, in the format
// sha256sum -c reads.
//
//	go run ./internal/cmd/dist -version v0.1.0 -commit $(git rev-parse HEAD) -out dist \
//	    -platforms linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/a2agen/a2agen/internal/version"
)

// commands are the programs a release holds, under ./cmd/.
var commands = []string{"a2a", "a2a-scaffold", "protoc-gen-a2a"}

// docs are the files every archive holds next to the programs.
var docs = []string{"LICENSE", "NOTICE", "README.md", "CHANGELOG.md"}

func main() {
	var o options
	flag.StringVar(&o.version, "version", "v"+version.Version, "the release version, in archive names and --version")
	flag.StringVar(&o.commit, "commit", "", "the commit the release is built from (--version)")
	flag.BoolVar(&o.dirty, "dirty", false, "the work tree had uncommitted changes (--version)")
	flag.StringVar(&o.out, "out", "dist", "directory to write the artifacts into (emptied first)")
	platforms := flag.String("platforms", "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64", "comma- or space-separated GOOS/GOARCH pairs")
	flag.Parse()
	o.platforms = strings.FieldsFunc(*platforms, func(r rune) bool { return r == ',' || r == ' ' })
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

// options are the settings of one run.
type options struct {
	version, commit, out string
	dirty                bool
	platforms            []string
}

func run(o options) error {
	if len(o.platforms) == 0 {
		return errors.New("no platform given (-platforms linux/amd64,...)")
	}
	if err := os.RemoveAll(o.out); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var sums []string
	for _, p := range o.platforms {
		written, err := o.platform(p)
		if err != nil {
			return err
		}
		for _, f := range written {
			sum, err := sha256File(filepath.Join(o.out, f))
			if err != nil {
				return err
			}
			sums = append(sums, sum+"  "+f)
		}
		fmt.Printf("%s/%s\n", o.out, written[0])
	}
	slices.Sort(sums)
	return os.WriteFile(filepath.Join(o.out, "SHA256SUMS"), []byte(strings.Join(sums, "\n")+"\n"), 0o644)
}

// platform builds the commands for p (GOOS/GOARCH) and writes the archive
// (a .zip for Windows, else a .tar.gz) with them and the docs, and the list
// of the modules they were built from; it returns the two file names.
func (o options) platform(p string) (written []string, err error) {
	goos, goarch, ok := strings.Cut(p, "/")
	if !ok || goos == "" || goarch == "" {
		return nil, fmt.Errorf("platform %q: want GOOS/GOARCH, e.g. linux/amd64", p)
	}
	name := fmt.Sprintf("a2agen_%s_%s_%s", strings.TrimPrefix(o.version, "v"), goos, goarch)
	stage, err := os.MkdirTemp("", "a2agen-dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	files, modules, err := o.build(goos, goarch, stage)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		files[d] = d
	}
	archive := name + ".tar.gz"
	write := writeTarGz
	if goos == "windows" {
		archive, write = name+".zip", writeZip
	}
	if err := write(filepath.Join(o.out, archive), name, files); err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	list := name + ".modules.txt"
	if err := os.WriteFile(filepath.Join(o.out, list), modules, 0o644); err != nil {
		return nil, err
	}
	return []string{archive, list}, nil
}

// build builds every command for goos/goarch into stage; it returns the
// programs by their name in the archive and what go version -m says of
// them (the stage's path left out).
func (o options) build(goos, goarch, stage string) (map[string]string, []byte, error) {
	ldflags := fmt.Sprintf("-s -w -X %s=%s -X %s=%s -X %s=%t", version.ReleaseSymbol, o.version, version.CommitSymbol, o.commit, version.DirtySymbol, o.dirty)
	files := map[string]string{} // name in the archive → path
	var modules bytes.Buffer
	for _, c := range commands {
		exe := c
		if goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(stage, exe)
		build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, "./cmd/"+c)
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return nil, nil, fmt.Errorf("building %s for %s/%s: %w", c, goos, goarch, err)
		}
		files[exe] = bin
		m, err := exec.Command("go", "version", "-m", bin).Output()
		if err != nil {
			return nil, nil, fmt.Errorf("go version -m %s: %w", bin, err)
		}
		modules.Write(bytes.ReplaceAll(m, []byte(stage+string(filepath.Separator)), nil))
	}
	return files, modules.Bytes(), nil
}

// modTime is the time every archive entry carries, so that archives of the
// same binaries are the same bytes.
var modTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// mode is an archive entry's permissions: programs are executable.
func mode(name string) int64 {
	if slices.Contains(docs, name) {
		return 0o644
	}
	return 0o755
}

func writeTarGz(path, dir string, files map[string]string) error {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		data, err := os.ReadFile(files[n])
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: dir + "/" + n, Mode: mode(n), Size: int64(len(data)), ModTime: modTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func writeZip(path, dir string, files map[string]string) error {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		data, err := os.ReadFile(files[n])
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: dir + "/" + n, Method: zip.Deflate, Modified: modTime}
		h.SetMode(os.FileMode(mode(n)))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
