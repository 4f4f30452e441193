// `tirrun generate`: text (or token ids) from a decoder LLM exported as transformers exports
// it (tools/export_llm.py), through llm/generator.h. Tokens stream to stdout as they are
// picked; a summary line (time to first token, prefill and decode tokens/s) goes to stderr,
// or everything as one JSON object to stdout with --json.
#pragma once

namespace tir::tools {

/// The command's main: argv[0] is "generate". Returns the process exit code (0, 1 when the
/// model, tokenizer or prompt fails, 2 on a usage error).
int generate_main(int argc, char** argv);

}  // namespace tir::tools
