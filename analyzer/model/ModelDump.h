// A stable, line-per-event text form of a Module, for `check --dump-model` and frontend tests.
#pragma once
#include <string>

#include "model/StreamModel.h"

namespace sl::model {
std::string dump(const Module& m);
}
