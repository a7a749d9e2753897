// nasc: a polyhedral tensor compiler for CNNs. Thin CLI over compiler/.
#include "ir/Error.h"
#include "tools/nasc/Commands.h"

#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"nasc: compiles CNN models (ONNX or nasc JSON spec) into fast code through a "
               "polyhedral loop-nest IR (isl) and LLVM"};
  app.require_subcommand(1);
  int status = 0;
  nasc::cli::addCompileCommand(app);
  nasc::cli::addRunCommand(app);
  nasc::cli::addBenchCommand(app);
  nasc::cli::addInspectCommand(app);
  nasc::cli::addFisherCommand(app);
  nasc::cli::addCapacityCommand(app, status);
  nasc::cli::addMutateCommand(app, status);
  nasc::cli::addDbCommand(app);
  nasc::cli::addSearchCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const nasc::Error &e) {
    std::cerr << "nasc: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "nasc: internal error: " << e.what() << "\n";
    return 2;
  }
  return status;
}
