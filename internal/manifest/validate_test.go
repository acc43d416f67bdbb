package manifest

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// minimal is the smallest valid manifest; broken cases start from it.
const minimal = `apiVersion: a2agen/v1
name: Echo
description: Echoes.
version: "1.0.0"
bindings:
  - binding: JSONRPC
skills:
  - id: echo
    name: Echo
    description: Echoes text.
    tags: [demo]
`

// brokenCase is a manifest with the exact messages validate must print.
type brokenCase struct {
	name string
	yaml string
	want []string
	// schemaMisses is set when JSON Schema cannot express the rule
	// (cross references, uniqueness, relations between sections), so the
	// schema accepts what the decoder rejects.
	schemaMisses bool
}

var brokenCases = []brokenCase{
	{
		name: "unknown keys with and without a suggestion",
		yaml: minimal + `nmae: Echo
capabilities:
  streamin: true
  colour: blue
`,
		want: []string{
			"agent.yaml:12:1: nmae: unknown key; did you mean \"name\"?",
			"agent.yaml:14:3: capabilities.streamin: unknown key; did you mean \"streaming\"?",
			"agent.yaml:15:3: capabilities.colour: unknown key (allowed here: streaming, pushNotifications, extendedAgentCard)",
		},
	},
	{
		name: "duplicate keys",
		yaml: minimal + `skills:
securitySchemes:
  a:
    type: mtls
  a:
    type: mtls
securityRequirements:
  - {a: [], a: []}
`,
		want: []string{
			"agent.yaml:12:1: skills: duplicate key (first at line 7)",
			"agent.yaml:16:3: securitySchemes.a: duplicate key (first at line 14)",
			"agent.yaml:19:13: securityRequirements[0].a: duplicate key (first at line 19)",
		},
	},
	{
		name: "missing required fields",
		yaml: `apiVersion: a2agen/v1
description: ""
bindings:
  - address: ":8080"
skills:
  - id: a
    name: A
    description: A.
    tags: [x]
  - name: B
    description:
    tags: []
`,
		want: []string{
			"agent.yaml:1:1: name: required",
			"agent.yaml:1:1: version: required",
			"agent.yaml:2:14: description: must not be empty",
			"agent.yaml:4:5: bindings[0].binding: required",
			"agent.yaml:10:5: skills[1].id: required",
			"agent.yaml:11:17: skills[1].description: must not be empty",
			"agent.yaml:12:11: skills[1].tags: must list at least one tag",
		},
	},
	{
		name: "wrong types",
		yaml: `apiVersion: a2agen/v1
name: [Echo]
description: Echoes.
version: 1.0
bindings: JSONRPC
capabilities:
  streaming: "yes"
skills:
  id: echo
`,
		want: []string{
			"agent.yaml:2:7: name: expected a string, got a list",
			"agent.yaml:4:10: version: expected a string, got a number (1.0); quote it: \"1.0\"",
			"agent.yaml:5:11: bindings: expected a list, got \"JSONRPC\"",
			"agent.yaml:7:14: capabilities.streaming: expected true or false, got \"yes\"",
			"agent.yaml:9:3: skills: expected a list, got a mapping",
		},
	},
	{
		name: "duplicate skill ids",
		yaml: minimal + `  - id: echo
    name: Echo again
    description: Echoes twice.
    tags: [demo]
  - id: Echo
    name: Echo loud
    description: Echoes loudly.
    tags: [demo]
  - id: 2fast
    name: Fast
    description: Fast.
    tags: [demo]
`,
		want: []string{
			"agent.yaml:12:9: skills[1].id: duplicate skill id \"echo\" (first at skills[0].id, line 8)",
			"agent.yaml:16:9: skills[2].id: skill id \"Echo\" differs only in case from \"echo\" at skills[0].id (line 8); skill files would collide",
			"agent.yaml:20:9: skills[3].id: skill id \"2fast\" must start with a letter",
		},
		schemaMisses: true,
	},
	{
		name: "bad URLs",
		yaml: minimal + `documentationUrl: ftp://example.com/docs
iconUrl: "http://"
url: https://example.com/agent?x=1
provider:
  organization: Example
  url: example.com
`,
		want: []string{
			"agent.yaml:12:19: documentationUrl: invalid URL \"ftp://example.com/docs\": must be an absolute http:// or https:// URL",
			"agent.yaml:13:10: iconUrl: invalid URL \"http://\": no host",
			"agent.yaml:14:6: url: invalid base URL \"https://example.com/agent?x=1\": no query or fragment allowed (binding paths are appended to it)",
			"agent.yaml:17:8: provider.url: invalid URL \"example.com\": must be an absolute http:// or https:// URL",
		},
	},
	{
		name: "bad media types",
		yaml: minimal + `    inputModes: [text, "text/plain;;"]
defaultOutputModes: ["application/json", "/json"]
`,
		want: []string{
			"agent.yaml:12:18: skills[0].inputModes[0]: invalid media type \"text\": must be type/subtype, such as \"text/plain\"",
			"agent.yaml:12:24: skills[0].inputModes[1]: invalid media type \"text/plain;;\": mime: invalid media parameter",
			"agent.yaml:13:42: defaultOutputModes[1]: invalid media type \"/json\": mime: no media type",
		},
	},
	{
		name: "requirements naming undefined schemes or scopes",
		yaml: minimal + `    securityRequirements:
      - bearr: []
securitySchemes:
  bearer:
    type: http
    scheme: bearer
  oauth:
    type: oauth2
    flows:
      clientCredentials:
        tokenUrl: https://auth.example.com/token
        scopes:
          read: Read
securityRequirements:
  - oauth: [raed, admin]
  - apikey: []
`,
		want: []string{
			"agent.yaml:13:9: skills[0].securityRequirements[0].bearr: undefined security scheme \"bearr\"; did you mean \"bearer\"?",
			"agent.yaml:26:13: securityRequirements[0].oauth[0]: scope \"raed\" is not declared in securitySchemes.oauth.flows.clientCredentials.scopes; did you mean \"read\"?",
			"agent.yaml:26:19: securityRequirements[0].oauth[1]: scope \"admin\" is not declared in securitySchemes.oauth.flows.clientCredentials.scopes",
			"agent.yaml:27:5: securityRequirements[1].apikey: undefined security scheme \"apikey\" (defined: bearer, oauth)",
		},
		schemaMisses: true,
	},
	{
		name: "unknown binding names",
		yaml: `apiVersion: a2agen/v1
name: Echo
description: Echoes.
version: "1.0.0"
bindings:
  - binding: jsonrpc
  - binding: REST
  - binding: SOAP
    adress: ":8081"
skills:
  - id: echo
    name: Echo
    description: Echoes text.
    tags: [demo]
`,
		want: []string{
			"agent.yaml:6:14: bindings[0].binding: unknown binding \"jsonrpc\"; did you mean \"JSONRPC\"?",
			"agent.yaml:7:14: bindings[1].binding: unknown binding \"REST\"; did you mean \"HTTP+JSON\"?",
			"agent.yaml:8:14: bindings[2].binding: unknown binding \"SOAP\" (want one of JSONRPC, HTTP+JSON, GRPC)",
			"agent.yaml:9:5: bindings[2].adress: unknown key; did you mean \"address\"?",
		},
	},
	{
		name: "only gRPC bindings leave the card nowhere to be served",
		yaml: `apiVersion: a2agen/v1
name: Echo
description: Echoes.
version: "1.0.0"
bindings:
  - binding: GRPC
skills:
  - id: echo
    name: Echo
    description: Echoes text.
    tags: [demo]
`,
		want: []string{
			"agent.yaml:6:3: bindings: add a JSONRPC or HTTP+JSON binding: its HTTP listener also serves the agent card (/.well-known/agent-card.json), without which clients cannot discover the GRPC interface",
		},
		schemaMisses: true,
	},
	{
		name: "bad enum values in security schemes",
		yaml: minimal + `securitySchemes:
  key:
    type: apiKey
    location: body
    name: X-Key
  basic:
    type: http
    scheme: digest
  sso:
    type: oauth
  tls:
    type: mtls
    scheme: bearer
  half:
    type: apiKey
    location: headers
`,
		want: []string{
			"agent.yaml:15:15: securitySchemes.key.location: unknown location \"body\" (want one of header, query, cookie)",
			"agent.yaml:19:13: securitySchemes.basic.scheme: unknown HTTP auth scheme \"digest\" (want one of bearer, basic)",
			"agent.yaml:21:11: securitySchemes.sso.type: unknown security scheme type \"oauth\"; did you mean \"oauth2\"?",
			"agent.yaml:24:5: securitySchemes.tls.scheme: not used by mtls schemes",
			"agent.yaml:26:5: securitySchemes.half.name: required for apiKey schemes",
			"agent.yaml:27:15: securitySchemes.half.location: unknown location \"headers\"; did you mean \"header\"?",
		},
	},
	{
		name: "oauth2 flows",
		yaml: minimal + `securitySchemes:
  two:
    type: oauth2
    flows:
      clientCredentials:
        tokenUrl: https://auth.example.com/token
        scopes: {}
      deviceCode:
        deviceAuthorizationUrl: https://auth.example.com/device
        tokenUrl: https://auth.example.com/token
        scopes: {}
  old:
    type: oauth2
    flows:
      implicit:
        authorizationUrl: https://auth.example.com/authorize
  none:
    type: oauth2
    flows: {}
  partial:
    type: oauth2
    flows:
      authorizationCode:
        tokenUrl: https://auth.example.com/token
`,
		want: []string{
			"agent.yaml:19:7: securitySchemes.two.flows.deviceCode: only one flow per scheme (A2A's OAuthFlows holds one); define another oauth2 scheme for deviceCode",
			"agent.yaml:26:7: securitySchemes.old.flows.implicit: the implicit flow is deprecated by A2A 1.0 and not supported; use authorizationCode (with pkceRequired: true)",
			"agent.yaml:30:12: securitySchemes.none.flows: define one flow: authorizationCode, clientCredentials, deviceCode",
			"agent.yaml:35:9: securitySchemes.partial.flows.authorizationCode.authorizationUrl: required",
			"agent.yaml:35:9: securitySchemes.partial.flows.authorizationCode.scopes: required",
		},
	},
	{
		name: "protocol versions: unknown, patch, duplicate, unquoted",
		yaml: minimal + `protocolVersions: ["1.0", "0.2", "0.3.0", "0.3", "0.3", 1.0, v1]
`,
		want: []string{
			"agent.yaml:12:27: protocolVersions[1]: unsupported protocol version \"0.2\"; a2a-scaffold agents serve \"1.0\", \"1.1\" and \"0.3\"",
			"agent.yaml:12:34: protocolVersions[2]: write \"0.3\": protocol versions are Major.Minor (A2A ignores patch versions in version negotiation), got \"0.3.0\"",
			"agent.yaml:12:50: protocolVersions[4]: duplicate protocol version \"0.3\" (first at protocolVersions[3])",
			"agent.yaml:12:57: protocolVersions[5]: expected a string, got a number (1.0); quote it: \"1.0\"",
			"agent.yaml:12:62: protocolVersions[6]: unsupported protocol version \"v1\"; a2a-scaffold agents serve \"1.0\", \"1.1\" and \"0.3\"",
		},
	},
	{
		name: "protocol versions without 1.0",
		yaml: minimal + `protocolVersions:
  - "0.3"
`,
		want: []string{
			"agent.yaml:13:3: protocolVersions: must include \"1.0\": every a2a-scaffold agent serves A2A 1.0 (add \"0.3\" next to it to serve v0.3 as well, \"1.1\" the A2A 1.1 draft)",
		},
	},
	{
		name: "protocol versions: empty list, not a list",
		yaml: strings.Replace(minimal, "bindings:", "protocolVersions: []\nbindings:", 1),
		want: []string{
			"agent.yaml:5:19: protocolVersions: must include \"1.0\": every a2a-scaffold agent serves A2A 1.0 (add \"0.3\" next to it to serve v0.3 as well, \"1.1\" the A2A 1.1 draft)",
		},
	},
	{
		name: "protocol versions: a string instead of a list",
		yaml: minimal + `protocolVersions: "1.0"
`,
		want: []string{
			"agent.yaml:12:19: protocolVersions: expected a list, got \"1.0\"",
		},
	},
	{
		name: "format version and kind",
		yaml: strings.Replace(minimal, "apiVersion: a2agen/v1", "apiVersion: a2agen/v2\nkind: Agents", 1),
		want: []string{
			"agent.yaml:1:13: apiVersion: unsupported apiVersion \"a2agen/v2\"; this a2a-scaffold reads \"a2agen/v1\"",
			"agent.yaml:2:7: kind: unknown kind \"Agents\"; the only kind is \"Agent\"",
		},
	},
	{
		name: "binding addresses, paths and tenants",
		yaml: `apiVersion: a2agen/v1
name: Echo
description: Echoes.
version: "1.0.0"
bindings:
  - binding: JSONRPC
    address: "8080"
  - binding: HTTP+JSON
    path: rest/
    tenant: a/b
  - binding: GRPC
    address: ":9090"
    path: /grpc
    url: "grpc.example.com"
skills:
  - id: echo
    name: Echo
    description: Echoes text.
    tags: [demo]
`,
		want: []string{
			"agent.yaml:7:14: bindings[0].address: invalid address \"8080\": must be host:port or :port, such as \":8080\"",
			"agent.yaml:9:11: bindings[1].path: invalid path \"rest/\": must start with \"/\"",
			"agent.yaml:10:13: bindings[1].tenant: invalid tenant \"a/b\": must be one URL path segment of letters, digits, \"-\", \".\", \"_\" and \"~\"",
			"agent.yaml:13:11: bindings[2].path: not used by GRPC bindings (gRPC routes by service name); remove it",
			"agent.yaml:14:10: bindings[2].url: invalid gRPC URL \"grpc.example.com\": want host:port, such as \"grpc.example.com:443\"",
		},
	},
	{
		name: "bindings sharing listeners",
		yaml: `apiVersion: a2agen/v1
name: Echo
description: Echoes.
version: "1.0.0"
bindings:
  - binding: JSONRPC
  - binding: HTTP+JSON
    path: /
  - binding: GRPC
    address: ":8080"
  - binding: HTTP+JSON
    address: "0.0.0.0:8080"
    path: /v2
skills:
  - id: echo
    name: Echo
    description: Echoes text.
    tags: [demo]
`,
		want: []string{
			"agent.yaml:8:11: bindings[1].path: \"/\" on \":8080\" is already served by bindings[0] (JSONRPC); give one of them another path",
			"agent.yaml:10:14: bindings[2].address: \":8080\" is also the address of bindings[0] (JSONRPC); a GRPC binding needs an address of its own",
			"agent.yaml:10:14: bindings[2].address: \":8080\" is also the address of bindings[1] (HTTP+JSON); a GRPC binding needs an address of its own",
			"agent.yaml:12:14: bindings[3].address: \"0.0.0.0:8080\" overlaps \":8080\" of bindings[0]; write the same address to serve both on one listener",
			"agent.yaml:12:14: bindings[3].address: \"0.0.0.0:8080\" overlaps \":8080\" of bindings[1]; write the same address to serve both on one listener",
			"agent.yaml:12:14: bindings[3].address: \"0.0.0.0:8080\" is also the address of bindings[2] (GRPC); a GRPC binding needs an address of its own",
		},
		schemaMisses: true,
	},
	{
		name: "sections that need a capability",
		yaml: minimal + `capabilities:
  extendedAgentCard: true
extendedCard:
  skills:
    - id: echo
      name: Admin
      description: Admin.
      tags: [admin]
push:
  timeout: soon
  maxRetries: -1
  initialBackoff: 2s
  maxBackoff: 1s
`,
		want: []string{
			"agent.yaml:13:22: capabilities.extendedAgentCard: the extended card is served only to authenticated callers; define at least one entry in securitySchemes",
			"agent.yaml:16:11: extendedCard.skills[0].id: duplicate skill id \"echo\" (first at skills[0].id, line 8)",
			"agent.yaml:21:3: push: capabilities.pushNotifications is not true, so these delivery settings would be unused; set it to true or remove push",
			"agent.yaml:21:12: push.timeout: invalid duration \"soon\": use a number with a unit, such as \"500ms\", \"10s\" or \"1m\"",
			"agent.yaml:22:15: push.maxRetries: must be from 0 to 100, got -1",
			"agent.yaml:24:15: push.maxBackoff: must not be shorter than initialBackoff (2s)",
		},
		schemaMisses: true,
	},
	{
		name: "extended card without its capability",
		yaml: minimal + `extendedCard:
  skills:
    - id: admin
      name: Admin
      description: Admin.
      tags: [admin]
`,
		want: []string{
			"agent.yaml:13:3: extendedCard: capabilities.extendedAgentCard is not true, so the extended card would never be served; set it to true or remove extendedCard",
		},
		schemaMisses: true,
	},
	{
		name: "extension params and uris",
		yaml: minimal + `extensions:
  - uri: citations
    params:
      big: 12345678901234567890
  - uri: https://example.com/ext
  - uri: https://example.com/ext
    required: maybe
    params: [1]
`,
		want: []string{
			"agent.yaml:13:10: extensions[0].uri: invalid URI \"citations\": must be absolute, such as \"https://example.com/ext/v1\"",
			"agent.yaml:15:12: extensions[0].params.big: integer 12345678901234567890 does not fit a JSON number exactly",
			"agent.yaml:17:10: extensions[2].uri: duplicate extension \"https://example.com/ext\" (first at extensions[1])",
			"agent.yaml:18:15: extensions[2].required: expected true or false, got \"maybe\"",
			"agent.yaml:19:13: extensions[2].params: expected a mapping, got a list",
		},
	},
	{
		name: "module and names",
		yaml: minimal + `module: example.com//agent
securitySchemes:
  "my key":
    type: mtls
  k:
    type: apiKey
    location: header
    name: "X Key"
`,
		want: []string{
			"agent.yaml:12:9: module: invalid module path \"example.com//agent\": empty path element",
			"agent.yaml:14:3: securitySchemes[\"my key\"]: scheme name \"my key\" may contain only letters, digits, \"-\", \"_\" and \".\"",
			"agent.yaml:19:11: securitySchemes.k.name: invalid name \"X Key\": ' ' is not allowed in a header or cookie name",
		},
	},
	{
		name: "yaml syntax error",
		yaml: "apiVersion: a2agen/v1\nname: [Echo\n",
		want: []string{
			"agent.yaml:2: invalid YAML: did not find expected ',' or ']'",
		},
	},
	{
		name: "empty file",
		yaml: "# nothing yet\n",
		want: []string{
			"agent.yaml:1:1: the manifest is empty; start from `a2a-scaffold new` or docs/manifest.md",
		},
	},
	{
		name: "two documents",
		yaml: minimal + "---\nname: second\n",
		want: []string{
			"agent.yaml:13:1: only one YAML document is allowed; remove the second one (after ---)",
		},
		schemaMisses: true,
	},
	{
		name: "typed skill schemas",
		yaml: minimal + `    inputModes: [application/json]
    input:
      schema:
        type: object
        properties:
          city: {type: strin}
          days: {type: integer, minimum: 1}
          when: {type: string, enumm: [now]}
          stops: {type: array}
          kind: {type: integer, enum: [1, 2]}
          hours: {type: integer, default: 2.5}
        required: [city, nope]
    output:
      schema:
        type: array
        items: {type: string}
`,
		want: []string{
			`agent.yaml:17:24: skills[0].input.schema.properties.city.type: unknown type "strin" (want one of object, array, string, number, integer, boolean)`,
			`agent.yaml:18:33: skills[0].input.schema.properties.days.minimum: "minimum" is not in the JSON Schema subset of typed skills (type, description, properties, required, additionalProperties, items, enum, default); check the range in the skill's code`,
			`agent.yaml:19:32: skills[0].input.schema.properties.when.enumm: unknown keyword "enumm"; did you mean "enum"?`,
			`agent.yaml:20:18: skills[0].input.schema.properties.stops: items: required for type array (the schema of every element)`,
			`agent.yaml:21:39: skills[0].input.schema.properties.kind.enum: enum applies to type string only (this is integer)`,
			`agent.yaml:22:43: skills[0].input.schema.properties.hours.default: the default does not match the schema: expected an integer, got 2.5`,
			`agent.yaml:23:26: skills[0].input.schema.required[1]: "nope" is not a property of this object (properties: city, days, when, stops, kind, hours)`,
			`agent.yaml:26:15: skills[0].output.schema.type: the data of a skill is an object (its properties become the fields of a Go struct), got type array; make it a property of an object`,
		},
		schemaMisses: true,
	},
	{
		name: "typed skill modes and Go names",
		yaml: minimal + `    inputModes: [text/plain]
    input:
      schema:
        type: object
        properties:
          start-date: {type: string}
          start_date: {type: string}
`,
		want: []string{
			`agent.yaml:14:7: skills[0].input: the skill takes data parts (application/json) but inputModes (text/plain) does not list application/json; add it to the skill's inputModes`,
			`agent.yaml:18:23: skills[0].input.schema.properties.start_date: property "start-date" and "start_date" would both be Go field StartDate; rename one of them`,
		},
		schemaMisses: true,
	},
	{
		name: "typed skill examples that do not match",
		yaml: minimal + `    inputModes: [application/json]
    input:
      schema:
        type: object
        properties:
          city: {type: string, enum: [Lisbon, Oslo]}
        required: [city]
        additionalProperties: false
      examples:
        - {city: Paris}
        - {town: Oslo}
`,
		want: []string{
			`agent.yaml:21:11: skills[0].input.examples[0].city: example does not match the schema: "Paris" is not one of "Lisbon", "Oslo"`,
			`agent.yaml:22:11: skills[0].input.examples[1].city: example does not match the schema: required`,
			`agent.yaml:22:11: skills[0].input.examples[1].town: example does not match the schema: unknown property (this object has city)`,
		},
		schemaMisses: true,
	},
	{
		name: "not a mapping",
		yaml: "- a\n- b\n",
		want: []string{
			"agent.yaml:1:1: expected a mapping, got a list",
		},
	},
}

func TestValidateReportsEveryProblem(t *testing.T) {
	for _, tc := range brokenCases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("agent.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error; want %d problems", len(tc.want))
			}
			if m != nil {
				t.Error("a manifest returned together with errors")
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error is %T, not manifest.Errors", err)
			}
			got := strings.Split(err.Error(), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorsExposeEachProblem(t *testing.T) {
	_, err := Parse("a.yaml", []byte(strings.Replace(minimal, "    tags: [demo]\n", "", 1)))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(*Error) failed on %v", err)
	}
	want := &Error{File: "a.yaml", Line: 8, Col: 5, Path: "skills[0].tags", Message: "required"}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidManifests(t *testing.T) {
	full, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"minimal": []byte(minimal),
		"full":    full,
		"starter": Starter("My Agent"),
	} {
		if _, err := Parse(name, data); err != nil {
			t.Errorf("%s:\n%v", name, err)
		}
	}
}

func TestLoad(t *testing.T) {
	m, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m.File != "testdata/full.yaml" || m.Name != "Travel Planner" {
		t.Errorf("File %q, Name %q", m.File, m.Name)
	}
	if _, err := Load("testdata/missing.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v; want os.ErrNotExist", err)
	}
}

func TestAliasExpansionIsBounded(t *testing.T) {
	doc := minimal + `extensions:
  - uri: https://example.com/laughs
    params:
      a: &a [x, x, x, x, x, x, x, x, x, x]
      b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
      c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
      d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
      e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
      f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
      g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
      h: [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
`
	_, err := Parse("agent.yaml", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), "more than 100000 values") {
		t.Errorf("Parse = %v; want the params limit", err)
	}
}
