// The rfdb executable: hands argv to the CLI and exits with its code.
#include "cli/app.hpp"

int main(int argc, char** argv)
{
  return rfdb::cli::run(argc, argv);
}
