// A library built by `nasc compile --target aarch64-linux-gnu` holds NEON code: its conv's
// multiply-adds are 4-lane fmla (read back with Debian's aarch64-linux-gnu-objdump).
#include "test/aarch64/AArch64Run.h"
#include "test/support/ScheduleRun.h"

#include <regex>
#include <sstream>

using namespace nasc;

TEST_CASE("nasc compile --target aarch64-linux-gnu emits 4-lane NEON fmla for a dense conv",
          "[aarch64]") {
  const std::filesystem::path dir = test::aarch64Dir("neon_library");
  const std::filesystem::path model =
      test::writeFile(dir, "conv.json", test::convReluNet("neon_conv", 1, 8, 6, 8, 16, 3));
  const std::filesystem::path so = test::compileForAArch64(dir, model);
  const std::filesystem::path listing = dir / "libmodel.s";
  const std::string disassemble =
      std::string(NASC_AARCH64_OBJDUMP) + " -d " + so.string() + " > " + listing.string();
  REQUIRE(std::system(disassemble.c_str()) == 0);
  std::stringstream text;
  text << std::ifstream(listing).rdbuf();
  const std::string assembly = text.str();
  const std::regex fmla4s(R"(fmla\s+v[0-9]+\.4s)");
  CHECK(std::distance(std::sregex_iterator(assembly.begin(), assembly.end(), fmla4s),
                      std::sregex_iterator()) >= 4);
}
