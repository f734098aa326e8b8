/* version.h - the release number */
#ifndef ECNWATCH_VERSION_H
#define ECNWATCH_VERSION_H

#define EW_VERSION "0.1.0"

#endif /* ECNWATCH_VERSION_H */
