#pragma once

#include <QLatin1StringView>

namespace sb {

// The backends' names, as JobSpec::backend, Job::backend and the registry know them: the one
// place they are written.
namespace BackendName {
inline constexpr QLatin1StringView kLocal("local");
inline constexpr QLatin1StringView kSsh("ssh");
inline constexpr QLatin1StringView kKubernetes("kubernetes");
inline constexpr QLatin1StringView kSlurm("slurm");
} // namespace BackendName

} // namespace sb
