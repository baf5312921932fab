// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `serve --oip-* --pipeline NAME=COMPONENT`: the components opened as the OIP server's pipelines
// (serve/oip/pipeline.h) over the engine's ComponentPipeline: the one place the two meet.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/nn_environment.h"
#include "serve/pipeline/component_pipeline.h"
#include "serve/oip/pipeline.h"

namespace wasinn_cli {

// Each NAME=COMPONENT compiled, instantiated once and described, at start. Throws UsageError
// naming the flag for a malformed value, a name taken twice or by a registered model, a
// component that is not a pipeline, or a model it loads (its models export) not registered.
std::map<std::string, std::shared_ptr<wasinn::oip_server::Pipeline>> open_pipelines(
    const std::vector<std::string>& flags, std::shared_ptr<wasinn::NnEnvironment> env,
    const wasinn::PipelineOptions& options);

}  // namespace wasinn_cli
