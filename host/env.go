package host

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// EnvPrefix starts the name of the environment variable of every flag of
// Main.
const EnvPrefix = "A2A_"

// EnvName is the environment variable that gives Main's flag flagName when
// the command line does not: EnvPrefix and the name in capitals, '-' as
// '_' (shutdown-grace: A2A_SHUTDOWN_GRACE).
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// versionFlag is Main's -version, the one flag without an environment
// variable: a variable would make every start print the version and exit.
const versionFlag = "version"

// envLister is a flag whose variable holds a list (-listen: FROM=TO,FROM=TO).
type envLister interface{ envItems(v string) []string }

// applyEnv sets every flag of flags not given on the command line from its
// environment variable, when that is set and not empty. It returns which
// flags it set, or the first bad value, naming its variable.
func applyEnv(flags *flag.FlagSet, given map[string]bool) (map[string]bool, error) {
	fromEnv := map[string]bool{}
	var err error
	flags.VisitAll(func(f *flag.Flag) {
		if err != nil || given[f.Name] || f.Name == versionFlag {
			return
		}
		v := os.Getenv(EnvName(f.Name))
		if v == "" {
			return
		}
		items := []string{v}
		if l, ok := f.Value.(envLister); ok {
			items = l.envItems(v)
		}
		for _, item := range items {
			if serr := flags.Set(f.Name, item); serr != nil {
				err = fmt.Errorf("$%s=%q: invalid value for -%s: %v", EnvName(f.Name), v, f.Name, serr)
				return
			}
		}
		fromEnv[f.Name] = true
	})
	return fromEnv, err
}

// envNote is " (from $A2A_X, $A2A_Y)" for those of names whose values came
// from the environment, else "".
func envNote(fromEnv map[string]bool, names ...string) string {
	var vars []string
	for _, n := range names {
		if fromEnv[n] {
			vars = append(vars, "$"+EnvName(n))
		}
	}
	if len(vars) == 0 {
		return ""
	}
	return " (from " + strings.Join(vars, ", ") + ")"
}

// printFlags lists the flags as flag.PrintDefaults does, with the
// environment variable of each next to its name.
func printFlags(out io.Writer, flags *flag.FlagSet) {
	flags.VisitAll(func(f *flag.Flag) {
		typ, use := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if typ != "" {
			line += " " + typ
		}
		if f.Name != versionFlag {
			line += ", $" + EnvName(f.Name)
		}
		fmt.Fprintf(out, "%s\n    \t%s", line, strings.ReplaceAll(use, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "0s" {
			if typ == "string" || typ == "URL" {
				d = fmt.Sprintf("%q", d)
			}
			fmt.Fprintf(out, " (default %s)", d)
		}
		fmt.Fprintln(out)
	})
}
