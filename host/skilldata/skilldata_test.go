package skilldata

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// trip is what a2a-scaffold generates for tripSchema.
type trip struct {
	City  string     `json:"city"`
	Days  int        `json:"days"`
	Stops []tripStop `json:"stops,omitempty"`
	Rush  *bool      `json:"rush,omitempty"`
	Kind  *string    `json:"kind,omitempty"`
}

type tripStop struct {
	Name  string   `json:"name"`
	Hours *float64 `json:"hours,omitempty"`
}

const tripSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","default":2},"stops":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"hours":{"type":"number"}},"required":["name"]}},"rush":{"type":"boolean"},"kind":{"type":"string","enum":["city","beach"]}},"required":["city"]}`

var tripInput = MustSchema[trip]("plan-trip", "input", tripSchema)

func value(t testing.TB, js string) *structpb.Value {
	t.Helper()
	v := new(structpb.Value)
	if err := protojson.Unmarshal([]byte(js), v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDecodeFillsDefaults(t *testing.T) {
	got, err := tripInput.Decode(value(t, `{"city":"Oslo","stops":[{"name":"Opera","hours":1.5}],"extra":true}`))
	if err != nil {
		t.Fatal(err)
	}
	hours := 1.5
	want := trip{City: "Oslo", Days: 2, Stops: []tripStop{{Name: "Opera", Hours: &hours}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestDecodeReportsEveryPath(t *testing.T) {
	_, err := tripInput.Decode(value(t, `{"days":"3","stops":[{"hours":1}],"kind":"ski"}`))
	var re *runtime.Error
	if !errors.As(err, &re) || re.Code() != runtime.CodeInvalidParams {
		t.Fatalf("got %v, want InvalidParams", err)
	}
	wantMsg := `skill "plan-trip": the data does not match its input schema: data.city: required; data.days: expected an integer, got a string ("3"); data.stops[0].name: required; data.kind: "ski" is not one of "city", "beach"`
	if re.Message() != wantMsg {
		t.Errorf("message\n got %s\nwant %s", re.Message(), wantMsg)
	}
	// Error() (the request log, Go clients' errors) names each problem once.
	if got, want := err.Error(), "InvalidParams: "+wantMsg; got != want && !strings.HasSuffix(got, ": "+wantMsg) {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}
	var fields []string
	for _, v := range re.FieldViolations() {
		fields = append(fields, v.Field)
	}
	if diff := cmp.Diff([]string{"data.city", "data.days", "data.stops[0].name", "data.kind"}, fields); diff != "" {
		t.Errorf("field violations (-want +got):\n%s", diff)
	}
}

func TestArtifactChecksTheOutput(t *testing.T) {
	a, err := tripInput.Artifact("plan", trip{City: "Oslo", Days: 3})
	if err != nil {
		t.Fatal(err)
	}
	p := a.GetParts()[0]
	if p.GetMediaType() != "application/json" || p.GetData().GetStructValue().GetFields()["city"].GetStringValue() != "Oslo" {
		t.Errorf("artifact part %v", p)
	}
	if _, err := tripInput.Value(trip{City: "Oslo", Days: 1, Stops: nil}); err != nil {
		t.Errorf("a nil slice for an optional array: %v", err)
	}
	kind := "ski"
	_, err = tripInput.Artifact("plan", trip{City: "Oslo", Kind: &kind})
	if !errors.Is(err, runtime.ErrInternal) || !strings.Contains(err.Error(), `data.kind: \"ski\" is not one of`) && !strings.Contains(errors.Unwrap(err).Error(), `data.kind: "ski" is not one of`) {
		t.Errorf("an output outside its schema: %v, want Internal naming data.kind", err)
	}
}

func message(parts ...*a2av1.Part) *a2av1.Message {
	return &a2av1.Message{MessageId: "m", Role: a2av1.Role_ROLE_USER, Parts: parts}
}

func dataPart(t *testing.T, js string) *a2av1.Part {
	p, err := a2av1.NewJSONDataPart([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInputFromPartsAndText(t *testing.T) {
	ctx := context.Background()
	fromText := func(_ context.Context, text string) (trip, error) {
		if text == "fail" {
			return trip{}, errors.New("say which city")
		}
		if text == "bad" {
			k := "ski"
			return trip{City: "x", Kind: &k}, nil
		}
		return tripInput.DecodeJSON([]byte(text))
	}
	for _, tc := range []struct {
		name     string
		msg      *a2av1.Message
		fromText TextFunc[trip]
		want     trip
		wantErr  string
	}{
		{"data", message(a2av1.NewTextPart("ignored"), dataPart(t, `{"city":"Oslo","days":4}`)), fromText, trip{City: "Oslo", Days: 4}, ""},
		{"text as JSON", message(a2av1.NewTextPart(`{"city":"Kyoto"}`)), fromText, trip{City: "Kyoto", Days: 2}, ""},
		{"text that is no JSON", message(a2av1.NewTextPart("Kyoto please")), fromText, trip{}, `InvalidParams: skill "plan-trip": the text is not the JSON of its input (invalid character 'K' looking for beginning of value); send the input as a data part (application/json)`},
		{"text that starts with JSON", message(a2av1.NewTextPart("3 days in Kyoto")), fromText, trip{}, `InvalidParams: skill "plan-trip": the text is not the JSON of its input (more than one value); send the input as a data part (application/json)`},
		{"text refused", message(a2av1.NewTextPart("fail")), fromText, trip{}, `InvalidParams: skill "plan-trip": say which city`},
		{"text read wrong", message(a2av1.NewTextPart("bad")), fromText, trip{}, `InvalidParams: skill "plan-trip": the input read from the text does not match its input schema: data.kind: "ski" is not one of "city", "beach"`},
		{"text to a data-only skill", message(a2av1.NewTextPart(`{"city":"Kyoto"}`)), nil, trip{}, `InvalidParams: skill "plan-trip" takes a data part (application/json) holding its input; message.parts: no data part`},
		{"two data parts", message(dataPart(t, `{}`), a2av1.NewTextPart("x"), dataPart(t, `{}`)), fromText, trip{}, `InvalidParams: skill "plan-trip" takes one data part, got 2 (message.parts[0], message.parts[2]); message.parts: more than one data part`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Input(ctx, tripInput, tc.msg, tc.fromText)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error\n got %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestRunRefusesBeforeTheSkill(t *testing.T) {
	ran := false
	run := Run(tripInput, func(context.Context, *server.Request, trip, *server.Events) error { ran = true; return nil }, nil)
	err := run(context.Background(), &server.Request{Message: message(dataPart(t, `{"days":1}`))}, nil)
	if !errors.Is(err, runtime.ErrInvalidParams) || ran {
		t.Errorf("got %v (ran %v), want InvalidParams before the skill runs", err, ran)
	}
}

func TestMustSchemaPanicsOnABadSchema(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `skill "x": input schema`) {
			t.Errorf("recovered %v", r)
		}
	}()
	MustSchema[trip]("x", "input", `{"type":"strin"}`)
}

// FuzzDecode feeds arbitrary JSON, as a data part brings it from the
// network, to the decoder: it never panics, and whatever it accepts
// encodes back into a value that matches the schema.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"city":"Oslo"}`, `{"city":"Oslo","days":3,"stops":[{"name":"a","hours":2}],"rush":true,"kind":"city"}`, `[]`, `null`, `{"days":1e300}`, `{"city":1}`, `{"stops":[{}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := new(structpb.Value)
		if protojson.Unmarshal(data, v) != nil {
			return
		}
		got, err := tripInput.Decode(v)
		if err != nil {
			if !errors.Is(err, runtime.ErrInvalidParams) {
				t.Fatalf("%s: %v, want InvalidParams", data, err)
			}
			return
		}
		if _, err := tripInput.Value(got); err != nil {
			t.Fatalf("%s decoded into %+v, which does not encode back: %v", data, got, err)
		}
	})
}

// TestSchemaSkill: a schema names the skill it belongs to.
func TestSchemaSkill(t *testing.T) {
	if got := tripInput.Skill(); got != "plan-trip" {
		t.Errorf("Skill() = %q, want plan-trip", got)
	}
}
