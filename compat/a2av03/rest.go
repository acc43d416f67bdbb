package a2av03

import "github.com/a2agen/a2agen/runtime"

func restRoutes() []runtime.AdaptedRoute { return nil }
