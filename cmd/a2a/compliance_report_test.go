package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// registry is the requirement ids of the a2a-cli specification's
// COMPLIANCE.md (SPEC.md v0.2, revision 2026-08-17) with their tiers: the
// report must record an outcome for each.
var registry = map[string]int{
	"A2ACLI_CARD_GET_001": 1, "A2ACLI_SEND_001": 1, "A2ACLI_SEND_002": 1, "A2ACLI_SEND_003": 1, "A2ACLI_SEND_004": 1,
	"A2ACLI_SEND_005": 1, "A2ACLI_SEND_006": 1, "A2ACLI_TASK_GET_001": 1, "A2ACLI_TASK_CANCEL_001": 1,
	"A2ACLI_INTERACT_001": 1, "A2ACLI_INTERACT_002": 1, "A2ACLI_INTERACT_003": 1, "A2ACLI_INTERACT_004": 1, "A2ACLI_INTERACT_005": 1,
	"A2ACLI_TASK_POLL_001": 1, "A2ACLI_TASK_POLL_002": 1, "A2ACLI_TASK_POLL_003": 1, "A2ACLI_TASK_POLL_004": 1,
	"A2ACLI_OUT_001": 1, "A2ACLI_OUT_002": 1, "A2ACLI_OUT_003": 1, "A2ACLI_OUT_004": 1, "A2ACLI_OUT_005": 1, "A2ACLI_OUT_006": 1,
	"A2ACLI_EXIT_001": 1, "A2ACLI_EXIT_002": 1, "A2ACLI_AUTH_001": 1, "A2ACLI_AUTH_002": 1, "A2ACLI_AUTH_003": 1, "A2ACLI_AUTH_004": 1,
	"A2ACLI_TX_001": 1, "A2ACLI_TX_002": 1, "A2ACLI_TX_003": 1, "A2ACLI_VER_001": 1, "A2ACLI_DEFAULT_001": 1,
	"A2ACLI_CONFIG_001": 1, "A2ACLI_CLI_001": 1, "A2ACLI_SKILL_001": 1, "A2ACLI_SKILL_002": 1,
	"A2ACLI_CARD_GET_002": 2, "A2ACLI_TASK_LIST_001": 2, "A2ACLI_TASK_SUBSCRIBE_001": 2, "A2ACLI_TASK_SUBSCRIBE_002": 2,
	"A2ACLI_AUTH_005": 2, "A2ACLI_AUTH_006": 2, "A2ACLI_AUTH_007": 2, "A2ACLI_TX_004": 2, "A2ACLI_VER_003": 2,
	"A2ACLI_CONFIG_002": 2, "A2ACLI_DOWNLOAD_001": 2, "A2ACLI_OUT_007": 2, "A2ACLI_CONFORM_001": 2, "A2ACLI_CLI_002": 2, "A2ACLI_PUSH_001": 2,
	"A2ACLI_CARD_GET_003": 3, "A2ACLI_AUTH_008": 3, "A2ACLI_CARD_GET_004": 3, "A2ACLI_CARD_GET_005": 3, "A2ACLI_PUSH_002": 3,
	"A2ACLI_CHAT_001": 3, "A2ACLI_TX_005": 3, "A2ACLI_AUTH_009": 3, "A2ACLI_AUTH_010": 3, "A2ACLI_AUTH_011": 3,
	"A2ACLI_DEMO_SERVER_001": 3, "A2ACLI_VER_002": 3,
}

// complianceReport is the part of docs/cli-compliance.yaml the checks read.
type complianceReport struct {
	Report struct {
		TierClaimed int `yaml:"tier_claimed"`
	} `yaml:"report"`
	Summary map[string]struct {
		Total       int  `yaml:"total"`
		Pass        int  `yaml:"pass"`
		Partial     int  `yaml:"partial"`
		Fail        int  `yaml:"fail"`
		NotMeasured int  `yaml:"not_measured"`
		NA          int  `yaml:"na"`
		Satisfied   bool `yaml:"satisfied"`
	} `yaml:"summary"`
	Requirements map[string]struct {
		Tier   int     `yaml:"tier"`
		Status string  `yaml:"status"`
		Note   *string `yaml:"note"`
	} `yaml:"requirements"`
	Default001 map[string]struct {
		Shipped     string `yaml:"shipped"`
		Overridable string `yaml:"overridable"`
	} `yaml:"default_001_breakdown"`
}

var statusMark = map[string]string{"pass": "✅ Pass", "partial": "◐ Partial", "fail": "❌ Fail", "not_measured": "⊘ Not measured", "na": "— N/A"}

// TestComplianceReportIsBacked: the compliance report records an outcome
// for every requirement of the specification; every requirement it marks
// pass has a test in the evidence table, and the table proves nothing the
// report does not claim; its tallies, satisfied tiers and tier claimed
// follow the fail-closed rules of COMPLIANCE.md Appendix A.3; the Markdown
// report says the same as the YAML.
func TestComplianceReportIsBacked(t *testing.T) {
	raw, err := os.ReadFile("../../docs/cli-compliance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rep complianceReport
	if err := yaml.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	for id, tier := range registry {
		r, ok := rep.Requirements[id]
		switch {
		case !ok:
			t.Errorf("the report records no outcome for %s", id)
			continue
		case r.Tier != tier:
			t.Errorf("%s: tier %d in the report, %d in the specification", id, r.Tier, tier)
		case statusMark[r.Status] == "":
			t.Errorf("%s: status %q is not in the closed vocabulary", id, r.Status)
		case r.Status != "pass" && (r.Note == nil || strings.TrimSpace(*r.Note) == ""):
			t.Errorf("%s: status %s without a note", id, r.Status)
		}
		_, tested := evidence[id]
		if r.Status == "pass" && !tested {
			t.Errorf("the report claims %s, which no test of the evidence table covers", id)
		}
		if r.Status != "pass" && tested {
			t.Errorf("the evidence table proves %s, which the report does not mark pass", id)
		}
	}
	for id := range rep.Requirements {
		if _, ok := registry[id]; !ok {
			t.Errorf("the report lists %s, which the specification does not define", id)
		}
	}
	for id := range evidence {
		if _, ok := registry[id]; !ok {
			t.Errorf("the evidence table names %s, which the specification does not define", id)
		}
	}
	if rep.Requirements["A2ACLI_DEFAULT_001"].Status == "pass" {
		if len(rep.Default001) != 6 {
			t.Errorf("DEFAULT_001 pass with %d breakdown rows, want 6", len(rep.Default001))
		}
		for k, d := range rep.Default001 {
			if d.Shipped != "yes" || d.Overridable != "yes" {
				t.Errorf("DEFAULT_001 pass, but %s is shipped %s, overridable %s", k, d.Shipped, d.Overridable)
			}
		}
	}
	claimed := 0
	for tier := 1; tier <= 3; tier++ {
		counts := map[string]int{}
		total := 0
		for id, tr := range registry {
			if tr == tier {
				total++
				counts[rep.Requirements[id].Status]++
			}
		}
		satisfied := counts["pass"]+counts["na"] == total
		s, ok := rep.Summary[fmt.Sprintf("tier_%d", tier)]
		if !ok || s.Total != total || s.Pass != counts["pass"] || s.Partial != counts["partial"] || s.Fail != counts["fail"] ||
			s.NotMeasured != counts["not_measured"] || s.NA != counts["na"] || s.Satisfied != satisfied {
			t.Errorf("summary tier_%d %+v does not add up: %d requirements, %v, satisfied %v", tier, s, total, counts, satisfied)
		}
		if satisfied && claimed == tier-1 {
			claimed = tier
		}
	}
	if rep.Report.TierClaimed != claimed {
		t.Errorf("tier_claimed %d; the outcomes satisfy tier %d", rep.Report.TierClaimed, claimed)
	}

	md, err := os.ReadFile("../../docs/cli-compliance.md")
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range rep.Requirements {
		row := regexp.MustCompile("(?m)^\\| `" + id + "` \\|.*\\| " + regexp.QuoteMeta(statusMark[r.Status]) + " \\|")
		if !row.Match(md) {
			t.Errorf("docs/cli-compliance.md has no row of %s marked %s", id, statusMark[r.Status])
		}
	}
	if !strings.Contains(string(md), fmt.Sprintf("| **Tier claimed** | **Tier %d** |", claimed)) {
		t.Errorf("docs/cli-compliance.md does not claim tier %d", claimed)
	}
}
