/**
 * OpenAPI v2 (JSON) into gnostic's protobuf openapi_v2.Document, the form kube-apiserver serves
 * /openapi/v2 in to kubectl and client-go. The release's own document is converted when the API
 * is generated (tools/openapiv2pb, by gnostic's ParseDocument itself); this encodes only what the
 * server adds at run time (the CRDs' paths and definitions, the served info), as a second
 * Document appended to the release's bytes: protobuf merges a message read twice, appending
 * repeated fields (the paths, the definitions) and taking the last of the singular ones.
 *
 * Field numbers come from the generated descriptor of OpenAPIv2.proto (apidata's
 * openapiV2Fields); how a JSON value becomes a message follows gnostic's generated NewX functions:
 * a key is its field in snake case (`$ref` is `_ref`), `x-…` keys are vendor extensions, a map is
 * a repeated Named… field, and a few messages wrap a choice (a type or a list of types, a schema
 * or a boolean, a parameter by where it goes). Values are Any messages written as their YAML,
 * and JSON is YAML. A key the message has no field for (a v3 schema's `nullable`, `anyOf`) is
 * left out, as the Swagger 2.0 schema has no place for it.
 */
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { openapiV2Fields } from '../api/apidata';
import type { ProtoField } from '../api/apidata';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const snake = (key: string) =>
  key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function fieldOf(message: string, name: string): ProtoField {
  const f = openapiV2Fields()[message]?.[name];
  if (!f) throw new Error(`OpenAPIv2.proto has no field ${message}.${name}`);
  return f;
}

/** Which field of a wrapper message a JSON value goes in, or undefined for a plain message. */
function choice(message: string, value: unknown): string | undefined {
  switch (message) {
    case 'TypeItem':
    case 'StringArray':
      return 'value';
    case 'ItemsItem':
      return 'schema';
    case 'AdditionalPropertiesItem':
      return typeof value === 'boolean' ? 'boolean' : 'schema';
    case 'ParametersItem':
    case 'ResponseValue':
      if (isObject(value) && '$ref' in value) return 'json_reference';
      return message === 'ParametersItem' ? 'parameter' : 'response';
    case 'SchemaItem':
      return isObject(value) && value.type === 'file' ? 'file_schema' : 'schema';
    case 'Parameter':
      return isObject(value) && value.in === 'body' ? 'body_parameter' : 'non_body_parameter';
    case 'NonBodyParameter': {
      const where = isObject(value) ? value.in : undefined;
      return where === 'header'
        ? 'header_parameter_sub_schema'
        : where === 'formData'
          ? 'form_data_parameter_sub_schema'
          : where === 'path'
            ? 'path_parameter_sub_schema'
            : 'query_parameter_sub_schema';
    }
    case 'SecurityDefinitionsItem': {
      const { type, flow } = isObject(value) ? value : {};
      if (type === 'basic') return 'basic_authentication_security';
      if (type === 'apiKey') return 'api_key_security';
      const byFlow: Record<string, string> = {
        implicit: 'oauth2_implicit_security',
        password: 'oauth2_password_security',
        application: 'oauth2_application_security',
        accessCode: 'oauth2_access_code_security',
      };
      return byFlow[String(flow)] ?? 'api_key_security';
    }
    default:
      return undefined;
  }
}

/** The field a map-like message keeps its entries in: `additional_properties`, `path`… */
function entriesField(message: string): string | undefined {
  if (message === 'Paths') return 'path';
  if (message === 'Responses') return 'response_code';
  const fields = openapiV2Fields()[message] ?? {};
  return 'additional_properties' in fields && fields.additional_properties[1].startsWith('repeated')
    ? 'additional_properties'
    : undefined;
}

/** Writes one field (repeated ones element by element) of a value of JSON. */
function writeField(w: BinaryWriter, [no, kind, type]: ProtoField, value: unknown): void {
  if (value === undefined) return;
  if (kind.startsWith('repeated ')) {
    const one: ProtoField = [no, kind.slice('repeated '.length), type];
    for (const v of Array.isArray(value) ? value : [value]) writeField(w, one, v);
    return;
  }
  switch (kind) {
    case 'string':
      if (typeof value === 'string' && value) w.tag(no, WireType.LengthDelimited).string(value);
      return;
    case 'bool':
      if (value === true) w.tag(no, WireType.Varint).bool(true);
      return;
    case 'double':
      if (typeof value === 'number' && value) w.tag(no, WireType.Bit64).double(value);
      return;
    case 'int64':
      if (typeof value === 'number' && value) w.tag(no, WireType.Varint).int64(Math.trunc(value));
      return;
    case 'message':
      w.tag(no, WireType.LengthDelimited).fork();
      writeMessage(w, type, value);
      w.join();
      return;
    default:
      throw new Error(`OpenAPIv2.proto field kind ${kind} is not encoded`);
  }
}

/** Writes the fields of a message made of a value of JSON (its length is the caller's). */
function writeMessage(w: BinaryWriter, message: string, value: unknown): void {
  if (message === 'Any') {
    // gnostic keeps a value as YAML text; JSON is YAML, and every reader parses it as YAML.
    writeField(w, fieldOf('Any', 'yaml'), JSON.stringify(value));
    return;
  }
  const chosen = choice(message, value);
  if (chosen) return writeField(w, fieldOf(message, chosen), value);
  if (!isObject(value)) return;
  const entries = entriesField(message);
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('x-') && 'vendor_extension' in (openapiV2Fields()[message] ?? {})) {
      writeField(w, fieldOf(message, 'vendor_extension'), { name: key, value: v });
    } else if (entries) {
      writeField(w, fieldOf(message, entries), { name: key, value: v });
    } else {
      const f = openapiV2Fields()[message]?.[snake(key)];
      if (f) writeField(w, f, v);
    }
  }
}

/** A v2 document (or the part of one to merge into another) as openapi_v2.Document bytes. */
export function encodeOpenapiV2(doc: Json): Uint8Array {
  const w = new BinaryWriter();
  writeMessage(w, 'Document', doc);
  return w.finish();
}
