#include "cli/app.hpp"

int main(int argc, char** argv)
{
  return rfdb::cli::run(argc, argv);
}
