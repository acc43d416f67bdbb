package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2agen/a2agen/internal/clitokens"
)

// Configuration (SPEC.md §8.3): every option not given as a flag may come
// from the environment (A2ACLI_ and the long flag in upper snake case), a
// local .env file (found by walking up from the working directory, or the
// --config file instead), or the global ~/.config/a2a-cli/.env, in that
// order; else its built-in default. Only configuration is read there, never
// session state: nothing records a task or context id.

// envPrefix starts the environment variable of every option.
const envPrefix = "A2ACLI_"

// notConfigurable are the options that must be explicit flags: --stream
// (the output's shape follows the command line alone), the actions --help
// and --version, and --config itself.
var notConfigurable = []string{"stream", "help", "version", "config"}

// envName is the variable of a long flag: --agent-card → A2ACLI_AGENT_CARD.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// credentialOptions are the options whose values are secrets.
var credentialOptions = []string{"bearer", "api-key", "auth", "client-secret"}

// configFile is one .env file read.
type configFile struct {
	path   string
	values map[string]string
}

// globalConfigPath is ~/.config/a2a-cli/.env ($XDG_CONFIG_HOME honoured).
func (a *app) globalConfigPath() string {
	dir := clitokens.Dir(a.env.getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, ".env")
}

// localConfigPath is --config, or the nearest .env from the working
// directory up.
func (a *app) localConfigPath() string {
	if a.configFile != "" {
		return a.configFile
	}
	dir := a.env.workdir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return ""
		}
	}
	for {
		p := filepath.Join(dir, ".env")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readConfigFile reads a dotenv file: KEY=value lines, # comments, an
// optional "export ", values optionally quoted. A missing file is nil
// unless required.
func readConfigFile(path string, required bool) (*configFile, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) && !required {
			return nil, nil
		}
		return nil, usagef("--config: %v", err)
	}
	defer f.Close()
	cf := &configFile{path: path, values: map[string]string{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := configLine(line)
		if !ok {
			return nil, usagef("%s:%d: want KEY=value, got %q", path, n, strings.TrimPrefix(line, "export "))
		}
		cf.values[k] = v
	}
	return cf, sc.Err()
}

// configLine reads one KEY=value line of a dotenv file, after an optional
// "export ", the value's quotes (double or single) removed.
func configLine(line string) (key, value string, ok bool) {
	k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return strings.TrimSpace(k), v, ok
}

// loadConfig fills every option of cmd that was not given as a flag from
// the environment and the .env files, and records each option's source.
func (a *app) loadConfig(cmd *cobra.Command) error {
	files, err := a.configFiles()
	if err != nil {
		return err
	}
	a.sources = map[string]string{}
	var problems []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			a.sources[f.Name] = "flag --" + f.Name
			return
		}
		if slices.Contains(notConfigurable, f.Name) || f.Hidden {
			return
		}
		name := envName(f.Name)
		value, source := a.configValue(name, files, slices.Contains(credentialOptions, f.Name))
		if value == "" {
			a.sources[f.Name] = "default"
			return
		}
		if err := f.Value.Set(value); err != nil {
			problems = append(problems, fmt.Sprintf("%s=%q: %v", name, value, err))
			return
		}
		a.sources[f.Name] = source
	})
	if len(problems) > 0 {
		return usagef("%s", strings.Join(problems, "; "))
	}
	return nil
}

// configFiles are the .env files that exist, the local one (required when
// --config names it) before the global one.
func (a *app) configFiles() ([]*configFile, error) {
	var files []*configFile
	for _, f := range []struct {
		path     string
		required bool
	}{{a.localConfigPath(), a.configFile != ""}, {a.globalConfigPath(), false}} {
		if f.path == "" {
			continue
		}
		cf, err := readConfigFile(f.path, f.required)
		if err != nil {
			return nil, err
		}
		if cf != nil {
			files = append(files, cf)
		}
	}
	return files, nil
}

// configValue is the variable name's value and where it came from: the
// environment, else the first file that sets it ("" when none does). A
// credential read from a file others can read draws a warning.
func (a *app) configValue(name string, files []*configFile, credential bool) (value, source string) {
	if v := a.env.getenv(name); v != "" {
		return v, "environment " + name
	}
	for _, cf := range files {
		if v, ok := cf.values[name]; ok && v != "" {
			if credential {
				warnReadable(a.env.stderr, cf.path)
			}
			return v, "file " + cf.path + " (" + name + ")"
		}
	}
	return "", ""
}

// warnReadable warns when a file holding a credential can be read by
// other users.
func warnReadable(w io.Writer, path string) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(w, "a2a: warning: %s holds a credential and is readable by other users; chmod 600 it\n", path)
	}
}

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
		Long: `config shows the settings a2a runs with. Settings come, highest first, from
a flag, an environment variable (A2ACLI_ and the flag's name in upper snake
case: --agent-card is A2ACLI_AGENT_CARD), the local .env file (the nearest
one from the working directory up, or --config FILE instead), the global
~/.config/a2a-cli/.env, and the built-in default. Edit the files or the
environment to change them; a2a never writes them.`,
		Example: `  a2a config show
  A2ACLI_OUTPUT=json a2a config show
  a2a config show --config ./agents/acme.env`,
		Args: func(cmd *cobra.Command, args []string) error {
			return usagef("config needs a command: show")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Show each effective setting and where it came from",
		Long: `show prints every setting with its effective value and its source: a flag,
an environment variable, a file, or the default. Credentials are masked.`,
		Example: `  a2a config show
  a2a config show -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			type setting struct {
				Name   string `json:"name"`
				Value  string `json:"value"`
				Source string `json:"source"`
			}
			var all []setting
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				if f.Hidden || slices.Contains(notConfigurable, f.Name) {
					return
				}
				v := f.Value.String()
				if slices.Contains(credentialOptions, f.Name) && v != "" {
					v = "****"
				}
				all = append(all, setting{f.Name, v, a.sources[f.Name]})
			})
			if a.output == "json" {
				b, err := json.Marshal(map[string]any{"settings": all, "globalFile": a.globalConfigPath(), "localFile": a.localConfigPath()})
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(a.env.stdout, "%s\n", b)
				return err
			}
			fmt.Fprintf(a.env.stdout, "Global File: %s\n", orDash(a.globalConfigPath()))
			fmt.Fprintf(a.env.stdout, "Local File: %s\n", orDash(a.localConfigPath()))
			for _, s := range all {
				fmt.Fprintf(a.env.stdout, "%s: %s (%s)\n", s.Name, s.Value, s.Source)
			}
			return nil
		},
	}
	cmd.AddCommand(show)
	return cmd
}
