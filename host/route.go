package host

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// skillEntry is a skill with what the card says about it.
type skillEntry struct {
	Skill
	extended     bool // listed on the extended card only
	requirements []*a2av1.SecurityRequirement
	// inputModes and outputModes are the skill's, else the card's
	// defaults: what the skill accepts and produces.
	inputModes, outputModes []string
}

// router is the server.Executor of an agent: it picks a skill for each
// message, checks the skill's security requirements and runs it.
type router struct {
	skills []*skillEntry // public skills first, in card order
	public int           // how many of skills are public
	route  func(ctx context.Context, req *server.Request) string
	guard  *auth.Guard // nil when the card declares no security scheme
}

// newRouter matches the handlers to the skills of the cards: every skill
// needs exactly one handler.
func newRouter(public, extended *a2av1.AgentCard, skills []Skill, route func(context.Context, *server.Request) string, guard *auth.Guard) (*router, error) {
	byID, err := skillsByID(skills)
	if err != nil {
		return nil, err
	}
	r := &router{route: route, guard: guard}
	for _, cs := range public.GetSkills() {
		if err := r.add(byID, public, cs, false); err != nil {
			return nil, err
		}
	}
	r.public = len(r.skills)
	for _, cs := range extended.GetSkills() {
		if _, done := byID[cs.GetId()]; !done && r.find(cs.GetId()) != nil {
			continue // a public skill, repeated on the extended card
		}
		if err := r.add(byID, extended, cs, true); err != nil {
			return nil, err
		}
	}
	if r.public == 0 {
		return nil, fmt.Errorf("host: the agent card lists no skill")
	}
	if len(byID) > 0 {
		ids := slices.Sorted(maps.Keys(byID))
		return nil, fmt.Errorf("host: Config.Skills has skills the cards do not list: %s", strings.Join(ids, ", "))
	}
	return r, nil
}

// skillsByID indexes the handlers by skill id, refusing a handler without
// Run and a skill given twice.
func skillsByID(skills []Skill) (map[string]Skill, error) {
	byID := map[string]Skill{}
	for _, s := range skills {
		if s.Run == nil {
			return nil, fmt.Errorf("host: skill %q has no Run function", s.ID)
		}
		if _, dup := byID[s.ID]; dup {
			return nil, fmt.Errorf("host: skill %q is given twice", s.ID)
		}
		byID[s.ID] = s
	}
	return byID, nil
}

// add routes the skill cs of card (the extended card when ext) to its
// handler, taken out of byID; its modes default to the card's.
func (r *router) add(byID map[string]Skill, card *a2av1.AgentCard, cs *a2av1.AgentSkill, ext bool) error {
	s, ok := byID[cs.GetId()]
	if !ok {
		return fmt.Errorf("host: skill %q of the card has no Run function in Config.Skills", cs.GetId())
	}
	delete(byID, cs.GetId())
	r.skills = append(r.skills, &skillEntry{Skill: s, extended: ext, requirements: cs.GetSecurityRequirements(),
		inputModes:  modesOr(cs.GetInputModes(), card.GetDefaultInputModes()),
		outputModes: modesOr(cs.GetOutputModes(), card.GetDefaultOutputModes())})
	return nil
}

// modesOr is a skill's media types, or the card's defaults when it has none.
func modesOr(modes, defaults []string) []string {
	if len(modes) == 0 {
		return defaults
	}
	return modes
}

func (r *router) find(id string) *skillEntry {
	for _, s := range r.skills {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Execute implements server.Executor.
func (r *router) Execute(ctx context.Context, req *server.Request, events *server.Events) error {
	s, err := r.pick(ctx, req)
	if err != nil {
		return err
	}
	if r.guard != nil {
		if err := r.guard.Check(req.Caller, s.requirements); err != nil {
			return err
		}
	}
	if err := checkInputModes(s.ID, req.Message, s.inputModes); err != nil {
		return err
	}
	if err := checkOutputModes(s.ID, req.AcceptedOutputModes, s.outputModes); err != nil {
		return err
	}
	if len(s.outputModes) == 0 {
		return s.Run(ctx, req, events)
	}
	// What the skill answers is held to its outputModes: a part of another
	// media type is refused (the events method returns the error), and the
	// task fails with it even when the skill goes on and returns nil.
	var refused atomic.Pointer[runtime.Error]
	events.CheckParts(func(where string, p *a2av1.Part) error {
		e := checkOutputPart(s.ID, where, p, s.outputModes)
		if e != nil {
			refused.CompareAndSwap(nil, e)
			return e
		}
		return nil
	})
	err = s.Run(ctx, req, events)
	if e := refused.Load(); e != nil {
		return e
	}
	return err
}

// pick applies the routing rules of the package documentation.
func (r *router) pick(ctx context.Context, req *server.Request) (*skillEntry, error) {
	if len(r.skills) == 1 {
		return r.skills[0], nil
	}
	if id, ok := namedSkill(req); ok {
		s := r.find(id)
		if s == nil || (s.extended && req.Caller == nil) {
			return nil, runtime.InvalidParams(fmt.Sprintf("unknown skill %q in metadata %q; this agent's skills: %s", id, SkillMetadataKey, r.publicIDs()),
				runtime.FieldViolation{Field: "message.metadata", Description: "names an unknown skill"})
		}
		return s, nil
	}
	id := ""
	if r.route != nil {
		id = r.route(ctx, req)
	}
	if id == "" {
		return r.skills[0], nil
	}
	s := r.find(id)
	if s == nil {
		return nil, runtime.Internal(fmt.Errorf("host: Route returned %q, which is not a skill of the agent (%s)", id, r.publicIDs()))
	}
	return s, nil
}

func (r *router) publicIDs() string {
	ids := make([]string, r.public)
	for i, s := range r.skills[:r.public] {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

// namedSkill finds the skill a message names (see the package
// documentation for the order).
func namedSkill(req *server.Request) (string, bool) {
	if id, ok := skillIn(req.Message.GetMetadata()); ok {
		return id, true
	}
	for i := len(req.History) - 1; i >= 0; i-- {
		if id, ok := skillIn(req.History[i].GetMetadata()); ok {
			return id, true
		}
	}
	return skillIn(req.Metadata)
}

func skillIn(md *structpb.Struct) (string, bool) {
	v, ok := md.GetFields()[SkillMetadataKey]
	if !ok {
		return "", false
	}
	s, ok := v.GetKind().(*structpb.Value_StringValue)
	if !ok {
		return "", false
	}
	return s.StringValue, true
}
