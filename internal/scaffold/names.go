package scaffold

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/internal/manifest"
)

// skillCode is how one skill appears in the project's Go code.
type skillCode struct {
	manifest.Skill
	Func     string // the user-owned function, e.g. skillPlanTrip
	File     string // its file, e.g. skill_plan_trip.go
	Extended bool   // listed on the extended card only
	typedCode
	llmCode
}

// skillCodes names the Go function and file of every skill (public ones
// first). Ids that map to the same function or file are an error naming
// both.
func skillCodes(m *manifest.Manifest) ([]skillCode, error) {
	var out []skillCode
	add := func(s manifest.Skill, ext bool) {
		c := skillCode{Skill: s, Func: "skill" + camel(s.ID), File: skillFile(s.ID), Extended: ext}
		typedNames(&c, m)
		llmNames(&c)
		out = append(out, c)
	}
	for _, s := range m.Skills {
		add(s, false)
	}
	if m.ExtendedCard != nil {
		for _, s := range m.ExtendedCard.Skills {
			add(s, true)
		}
	}
	funcs, files := map[string]string{}, map[string]string{}
	for _, s := range out {
		if other, ok := funcs[s.Func]; ok {
			return nil, fmt.Errorf("skills %q and %q would both be implemented by func %s; rename one of them", other, s.ID, s.Func)
		}
		if other, ok := files[s.File]; ok {
			return nil, fmt.Errorf("skills %q and %q would both live in %s; rename one of them", other, s.ID, s.File)
		}
		funcs[s.Func], files[s.File] = s.ID, s.ID
	}
	return out, nil
}

// camel turns a skill id into the tail of a Go identifier: "plan-trip" and
// "plan.trip" give "PlanTrip". Skill ids start with a letter (the manifest
// checks it), so this is the name dataschema gives a property.
func camel(id string) string { return dataschema.GoName(id) }

// skillFile is the user-owned file of a skill: skill_<id>.go, lower case,
// with "-" and "." as "_". A name the go command would read as a test file
// or a build constraint (skill_test.go, skill_linux.go, skill_arm64.go) gets
// "_skill" appended.
func skillFile(id string) string {
	base := "skill_" + strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return unicode.ToLower(r)
	}, id)
	last := base[strings.LastIndexByte(base, '_')+1:]
	if last == "test" || knownOS[last] || knownArch[last] {
		base += "_skill"
	}
	return base + ".go"
}

// knownOS and knownArch are the GOOS and GOARCH values the go command
// recognises in file names (go/build's lists, including reserved ones).
var (
	knownOS = setOf("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux",
		"nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")
	knownArch = setOf("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips", "mipsle",
		"mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390",
		"s390x", "sparc", "sparc64", "wasm")
)

func setOf(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, v := range s {
		m[v] = true
	}
	return m
}
