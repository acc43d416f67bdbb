package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// maxDownloadBytes bounds one file fetched from a part's URL.
const maxDownloadBytes = 256 << 20

func (a *app) downloadCommand() *cobra.Command {
	var df downloadFlags
	cmd := &cobra.Command{
		Use:   "download TASK",
		Short: "Save a task's artifacts to files",
		Long: `download reads the task (GetTask) and writes every part of its artifacts
into --dir: a file part under its file name (the bytes it carries, or what
its URL serves), a text part as ARTIFACT-N.txt, a data part as
ARTIFACT-N.json. Existing files are kept unless --force. It prints each
file written.`,
		Example: `  a2a task download -a http://localhost:8080 TASK
  a2a task download -a http://localhost:8080 TASK --dir out --force`,
		RunE: a.onTask("task download", false, func(ctx context.Context, c *agentcard.Client, id string) error {
			return a.download(ctx, c, id, df)
		}),
	}
	cmd.Flags().StringVar(&df.dir, "dir", ".", "`DIR`ectory to write into (made if missing)")
	cmd.Flags().BoolVar(&df.force, "force", false, "overwrite existing files")
	return cmd
}

// downloadFlags are task download's flags: where the files go, and whether
// existing ones are overwritten.
type downloadFlags struct {
	dir   string
	force bool
}

// download saves every part of the task's artifacts into dir and prints
// each file written.
func (a *app) download(ctx context.Context, c *agentcard.Client, id string, df downloadFlags) error {
	task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: id})
	if err != nil {
		return callError(err)
	}
	if err := os.MkdirAll(df.dir, 0o755); err != nil {
		return err
	}
	labeled(a.env.stdout, "Task ID", task.GetId())
	labeled(a.env.stdout, "Context ID", task.GetContextId())
	labeled(a.env.stdout, "State", task.GetStatus().GetState().Short())
	n, err := a.saveArtifacts(ctx, task.GetArtifacts(), df)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(a.env.stderr, "a2a: task %s has no artifacts to save\n", id)
	}
	return nil
}

// saveArtifacts writes every part of the artifacts, printing each file
// written, and returns how many it wrote.
func (a *app) saveArtifacts(ctx context.Context, artifacts []*a2av1.Artifact, df downloadFlags) (int, error) {
	n := 0
	for _, art := range artifacts {
		for i, p := range art.GetParts() {
			path, err := a.savePart(ctx, df.dir, art, i, p, df.force)
			if err != nil {
				return n, err
			}
			labeled(a.env.stdout, "Saved", path)
			n++
		}
	}
	return n, nil
}

// savePart writes one artifact part and returns its path.
func (a *app) savePart(ctx context.Context, dir string, art *a2av1.Artifact, i int, p *a2av1.Part, force bool) (string, error) {
	stem := safeName(art.GetName())
	if stem == "" {
		stem = safeName(art.GetArtifactId())
	}
	name, data, err := a.partFile(ctx, fmt.Sprintf("%s-%d", stem, i+1), p)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", fmt.Errorf("artifact %s part %d: a kind this tool does not know", art.GetArtifactId(), i+1)
	}
	path := filepath.Join(dir, name)
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return "", usagef("%s exists: give --force to overwrite it, or another --dir", path)
		}
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// partFile is the file name and content of a part: a text part as
// stem.txt, a data part as stem.json, a file part under its own name (else
// its URL's, else stem.bin) with its bytes or what its URL serves. The name
// is "" for a kind of part this tool does not know.
func (a *app) partFile(ctx context.Context, stem string, p *a2av1.Part) (name string, data []byte, err error) {
	switch c := p.GetContent().(type) {
	case *a2av1.Part_Text:
		return stem + ".txt", []byte(c.Text), nil
	case *a2av1.Part_Data:
		b, err := compactJSON(c.Data)
		return stem + ".json", append(b, '\n'), err
	case *a2av1.Part_Raw:
		return orName(safeName(p.GetFilename()), stem+".bin"), c.Raw, nil
	case *a2av1.Part_Url:
		b, err := a.fetchPartURL(ctx, c.Url)
		return orName(safeName(p.GetFilename()), orName(safeName(urlFileName(c.Url)), stem+".bin")), b, err
	}
	return "", nil, nil
}

// fetchPartURL fetches what a file part's http(s) URL serves.
func (a *app) fetchPartURL(ctx context.Context, u string) ([]byte, error) {
	if !isHTTPURL(u) {
		return nil, fmt.Errorf("file part URL %q: only http(s) URLs can be fetched", u)
	}
	hc, err := a.httpClient()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, callError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: HTTP %s", u, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxDownloadBytes))
}

// safeName keeps a file name inside the directory: its last element, no
// leading dots.
func safeName(s string) string {
	s = filepath.Base(strings.ReplaceAll(s, "\\", "/"))
	s = strings.TrimLeft(s, ".")
	if s == "/" {
		return ""
	}
	return s
}

func orName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
