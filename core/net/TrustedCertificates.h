#pragma once

#include "util/Result.h"

namespace sb {

// Certificates of a lab's own CA, trusted besides the system's for every TLS connection of this
// process (a collector on https with a certificate the lab signed): the PEM file that
// SIGNALBOX_CA_FILE names. Call it once at start, before any connection; a file that cannot be
// read or holds no certificate is an error, said before anything is trusted.
Status trustCertificatesFromEnvironment();

} // namespace sb
