package host

import (
	"fmt"
	"mime"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The media types of parts that do not say theirs (Part.mediaType empty).
const (
	textMediaType  = "text/plain"
	dataMediaType  = "application/json"
	bytesMediaType = "application/octet-stream"
)

// partMediaType is the media type of a part: the one it declares, else
// text/plain for text, application/json for data and
// application/octet-stream for a file (raw or url).
func partMediaType(p *a2av1.Part) string {
	if mt := p.GetMediaType(); mt != "" {
		return mt
	}
	switch p.GetContent().(type) {
	case *a2av1.Part_Text:
		return textMediaType
	case *a2av1.Part_Data:
		return dataMediaType
	}
	return bytesMediaType
}

// mediaMatches reports whether media type offered is one of accepted:
// equal type and subtype, case-insensitively and ignoring parameters
// ("text/plain; charset=utf-8" is text/plain), where "*" in either accepts
// any type or subtype ("image/*", "*/*").
func mediaMatches(offered string, accepted []string) bool {
	ot, os := splitMediaType(offered)
	for _, a := range accepted {
		at, as := splitMediaType(a)
		if (at == "*" || ot == "*" || at == ot) && (as == "*" || os == "*" || as == os) {
			return true
		}
	}
	return false
}

func splitMediaType(s string) (string, string) {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		mt, _, _ = strings.Cut(s, ";")
	}
	typ, sub, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mt)), "/")
	return typ, sub
}

// checkInputModes refuses a message with a part whose media type the skill
// does not accept (its inputModes, else the card's defaultInputModes), with
// ContentTypeNotSupported naming what was offered and what is accepted. An
// empty accepted list accepts everything.
func checkInputModes(skill string, msg *a2av1.Message, accepted []string) error {
	if len(accepted) == 0 {
		return nil
	}
	var refused []string
	for _, p := range msg.GetParts() {
		if mt := partMediaType(p); !mediaMatches(mt, accepted) && !slices.Contains(refused, mt) {
			refused = append(refused, mt)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return withSkill(runtime.IncompatibleContentTypes(refused, accepted), skill, "inputModes")
}

// checkOutputModes refuses a message whose client accepts none of the media
// types the skill produces (acceptedOutputModes against the skill's
// outputModes, else the card's defaultOutputModes). A client that states no
// preference accepts everything.
func checkOutputModes(skill string, clientAccepts, produced []string) error {
	if len(clientAccepts) == 0 || len(produced) == 0 {
		return nil
	}
	for _, mt := range produced {
		if mediaMatches(mt, clientAccepts) {
			return nil
		}
	}
	return withSkill(runtime.IncompatibleContentTypes(clientAccepts, produced), skill, "outputModes")
}

// checkOutputPart refuses a part of what skill answers (where names it)
// whose media type is not among the skill's outputModes (else the card's
// defaultOutputModes): the card promises clients those types only, so this
// is a bug of the skill, reported as InvalidAgentResponse naming the part,
// its media type and the declared modes. nil when the part is one of them.
func checkOutputPart(skill, where string, p *a2av1.Part, produced []string) *runtime.Error {
	mt := partMediaType(p)
	if mediaMatches(mt, produced) {
		return nil
	}
	return runtime.InvalidAgentResponse(fmt.Sprintf("skill %q answered %s as %s, which is not among its outputModes (%s): send one of those, or add %s to the skill's outputModes in agent.yaml",
		skill, where, mt, strings.Join(produced, ", "), mt)).
		WithMetadata("skill", skill).WithMetadata("modes", "outputModes").WithMetadata("offered", mt).WithMetadata("accepted", strings.Join(produced, ","))
}

// withSkill adds which skill refused the call, and by which of its lists,
// to the error's metadata ("skill", "modes").
func withSkill(e *runtime.Error, skill, list string) error {
	return e.WithMetadata("skill", skill).WithMetadata("modes", list)
}
